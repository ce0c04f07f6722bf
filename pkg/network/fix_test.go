package network

import (
	"strings"
	"testing"
)

// rule: KP-7, LIM-12
// KP-7's l2bridge advice turns DSR off and moves Local Services to Cluster,
// since Local without DSR is unsupported.
func TestKP7L2BridgeFixAgreesWithLIM12(t *testing.T) {
	if fix := l2bridgeDSRFix("win2022-1"); !strings.Contains(fix, "remove --enable-dsr") || !strings.Contains(fix, "externalTrafficPolicy: Cluster") {
		t.Errorf("l2bridge: %q, want DSR off and Local Services moved to Cluster", fix)
	}
}
