package node

import (
	"net/url"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// An httpGet liveness probe answered with a redirect to another host is
// not followed: the probe passes with a warning (pkg/probe/http), and the
// kubelet says so in a ProbeWarning event quoting the response body, as
// upstream's "non-local redirect http liveness probe" test expects.
func TestProbeWarningOnNonLocalRedirect(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := simplePod("redirect", "linux-1", "registry.k8s.io/e2e-test-images/agnhost:2.59")
	pod.Spec.Containers[0].Args = []string{"liveness"}
	pod.Spec.Containers[0].LivenessProbe = &corev1.Probe{PeriodSeconds: 1, FailureThreshold: 1, ProbeHandler: corev1.ProbeHandler{
		HTTPGet: &corev1.HTTPGetAction{Path: "/redirect?loc=" + url.QueryEscape("http://0.0.0.0/"), Port: intstr.FromInt32(8080)},
	}}
	createPod(t, ns, pod)
	waitEvent(t, ns, "redirect", "ProbeWarning",
		`Liveness probe warning: Probe terminated redirects, Response body: <a href="http://0.0.0.0/">Found</a>.`, 60*time.Second)
	if n := eventCount(t, ns, "redirect", "Killing", ""); n != 0 {
		t.Errorf("container killed %d times for a probe that warned", n)
	}
}
