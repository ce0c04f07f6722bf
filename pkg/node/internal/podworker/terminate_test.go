package podworker

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// The regular containers stop before the sidecars, which stop in reverse
// order: a main container's preStop hook can still reach a sidecar.
func TestStopOrder(t *testing.T) {
	always := ptr.To(corev1.ContainerRestartPolicyAlways)
	a := &ctr{init: true, spec: corev1.Container{Name: "proxy", RestartPolicy: always}}
	b := &ctr{init: true, spec: corev1.Container{Name: "log", RestartPolicy: always}}
	m := &ctr{spec: corev1.Container{Name: "main"}}
	var got []string
	for _, c := range stopOrder([]*ctr{a, b, m}) {
		got = append(got, c.spec.Name)
	}
	if strings.Join(got, ",") != "main,log,proxy" {
		t.Errorf("stop order %v", got)
	}
}
