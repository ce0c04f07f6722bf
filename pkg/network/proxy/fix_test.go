package proxy

import (
	"strings"
	"testing"
)

// rule: KP-7, LIM-12
// KP-7's NodePort advice never leads into LIM-12: externalTrafficPolicy
// Local is advised alone only where kube-proxy runs with DSR.
func TestKP7NodePortFixAgreesWithLIM12(t *testing.T) {
	noDSR := &Proxier{}
	withDSR := &Proxier{cfg: Config{EnableDSR: true}}
	if fix := noDSR.nodePortFix(); !strings.Contains(fix, "--enable-dsr=true and then set externalTrafficPolicy: Local") {
		t.Errorf("without DSR: %q, want Local only together with --enable-dsr", fix)
	}
	if fix := withDSR.nodePortFix(); !strings.Contains(fix, "externalTrafficPolicy: Local") {
		t.Errorf("with DSR: %q, want Local", fix)
	}
}
