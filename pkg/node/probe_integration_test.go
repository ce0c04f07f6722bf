package node

import (
	"context"
	"net/url"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
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

// A preStop sleep hook holds the stop signal back for its seconds, and a
// deletion with a shorter grace period cuts it there, on Linux and Windows
// nodes alike (upstream's "Lifecycle Sleep Hook" tests; the kubelet runs
// preStop hooks with the grace period as their timeout).
func TestPreStopSleepHook(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	for _, node := range []string{"linux-1", "win2019-1"} {
		mk := func(name string, sleep, grace int64) {
			pod := simplePod(name, node, "registry.k8s.io/pause:3.10.2")
			pod.Spec.TerminationGracePeriodSeconds = ptr.To(grace)
			pod.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: sleep}}}
			// As upstream's test: a finalizer keeps the terminated pod
			// readable after the kubelet's final delete.
			pod.Finalizers = []string{"winkube.io/test-keep"}
			createPod(t, ns, pod)
			t.Cleanup(func() {
				patch := []byte(`{"metadata":{"finalizers":null}}`)
				_, _ = client.CoreV1().Pods(ns).Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{})
			})
			waitPod(t, ns, name, 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
		}
		held, cut := node+"-held", node+"-cut"
		mk(held, 4, 100)
		mk(cut, 60, 100)
		slept := func(name string, grace int64) time.Duration {
			opts := metav1.DeleteOptions{}
			if grace > 0 {
				opts.GracePeriodSeconds = ptr.To(grace)
			}
			if err := client.CoreV1().Pods(ns).Delete(context.Background(), name, opts); err != nil {
				t.Fatal(err)
			}
			p, err := client.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			deleted := p.DeletionTimestamp.Add(-time.Duration(*p.DeletionGracePeriodSeconds) * time.Second)
			var finished time.Time
			waitPod(t, ns, name, 90*time.Second, "container terminated", func(p *corev1.Pod) bool {
				if len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].State.Terminated != nil {
					finished = p.Status.ContainerStatuses[0].State.Terminated.FinishedAt.Time
					return true
				}
				return false
			})
			return finished.Sub(deleted)
		}
		// Timestamps have whole seconds: a 4 s hook shows at least 3 s.
		if d := slept(held, 0); d < 3*time.Second {
			t.Errorf("%s: container finished %s after the deletion, before its 4 s preStop sleep", node, d)
		}
		// A 60 s hook under a 3 s grace period ends with the grace period.
		if d := slept(cut, 3); d >= 60*time.Second || d < 2*time.Second {
			t.Errorf("%s: container finished %s after a deletion with 3 s grace and a 60 s preStop sleep", node, d)
		}
	}
}
