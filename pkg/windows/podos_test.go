package windows

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestPodOS: lint and the webhook ask PodOS which OS a pod runs; a pod
// whose images mix OSes is the OS it pins, so the LIM-* rules of that OS
// apply in both.
func TestPodOS(t *testing.T) {
	winSel := &corev1.PodSpec{NodeSelector: map[string]string{LabelOS: "windows"}}
	macos := &corev1.PodSpec{OS: &corev1.PodOS{Name: "macos"}}
	linux := &corev1.PodSpec{OS: &corev1.PodOS{Name: corev1.Linux}}
	cases := []struct {
		name                    string
		spec, sched             *corev1.PodSpec
		imagesOS, nodesOS, want string
	}{
		{"images decide", winSel, winSel, "linux", "", "linux"},
		// rule: LIM-1
		{"mixed images: the pinned OS", winSel, winSel, "", "", "windows"},
		{"spec.os before selectors", linux, winSel, "", "", "linux"},
		// rule: API-1
		{"an invalid spec.os pins nothing", macos, macos, "", "windows", "windows"},
		{"nothing pinned: the nodes' OS", &corev1.PodSpec{}, &corev1.PodSpec{}, "", "windows", "windows"},
	}
	for _, c := range cases {
		if got := PodOS(c.spec, c.sched, c.imagesOS, c.nodesOS); got != c.want {
			t.Errorf("%s: PodOS = %q, want %q", c.name, got, c.want)
		}
	}
}
