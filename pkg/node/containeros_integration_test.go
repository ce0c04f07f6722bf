package node

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// The e2e tests of security_context.go on a Linux node: nnp is setuid
// root unless allowPrivilegeEscalation is false, and ip link add needs
// CAP_NET_ADMIN, which an unprivileged container lacks.
func TestProgramPrivileges(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	cases := []struct {
		name, image string
		command     []string
		sc          *corev1.SecurityContext
		want        string
	}{
		{"nnp-false", "registry.k8s.io/e2e-test-images/nonewprivs:1.3", nil,
			&corev1.SecurityContext{RunAsUser: ptr.To[int64](1000), AllowPrivilegeEscalation: ptr.To(false)}, "Effective uid: 1000\n"},
		{"nnp-nil", "registry.k8s.io/e2e-test-images/nonewprivs:1.3", nil,
			&corev1.SecurityContext{RunAsUser: ptr.To[int64](1000)}, "Effective uid: 0\n"},
		{"unprivileged", busybox, []string{"sh", "-c", "ip link add dummy0 type dummy || true"},
			&corev1.SecurityContext{Privileged: ptr.To(false)}, "ip: RTNETLINK answers: Operation not permitted\n"},
		{"privileged", busybox, []string{"sh", "-c", "ip link add dummy0 type dummy && ip link show dummy0 | head -1"},
			&corev1.SecurityContext{Privileged: ptr.To(true)}, "3: dummy0: <BROADCAST,NOARP> mtu 1500 qdisc noop qlen 1000\n"},
	}
	for _, c := range cases {
		pod := simplePod(c.name, "linux-1", c.image)
		pod.Spec.RestartPolicy = corev1.RestartPolicyNever
		pod.Spec.Containers[0].Command = c.command
		pod.Spec.Containers[0].SecurityContext = c.sc
		createPod(t, ns, pod)
	}
	for _, c := range cases {
		waitPod(t, ns, c.name, 60*time.Second, "Succeeded", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodSucceeded })
		if got := logsOf(t, ns, c.name, "linux-1", "main"); !strings.Contains(got, c.want) {
			t.Errorf("%s: log %q, want %q", c.name, got, c.want)
		}
	}
}
