package node

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/node/internal/podworker"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func resources(cpuReq, cpuLim, memReq, memLim string) corev1.ResourceRequirements {
	r := corev1.ResourceRequirements{}
	set := func(l *corev1.ResourceList, name corev1.ResourceName, v string) {
		if v == "" {
			return
		}
		if *l == nil {
			*l = corev1.ResourceList{}
		}
		(*l)[name] = resource.MustParse(v)
	}
	set(&r.Requests, corev1.ResourceCPU, cpuReq)
	set(&r.Requests, corev1.ResourceMemory, memReq)
	set(&r.Limits, corev1.ResourceCPU, cpuLim)
	set(&r.Limits, corev1.ResourceMemory, memLim)
	return r
}

// resizePatch patches the resources of one container through pods/resize.
func resizePatch(t *testing.T, ns, name, ctr string, r corev1.ResourceRequirements) *corev1.Pod {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"containers":[{"name":%q,"resources":%s}]}}`, ctr, mustJSON(t, r))
	p, err := client.CoreV1().Pods(ns).Patch(context.Background(), name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "resize")
	if err != nil {
		t.Fatalf("resize %s: %v", name, err)
	}
	return p
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func resizeCond(p *corev1.Pod, ct corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == ct {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// statusShows reports whether the pod's status shows r as the container's
// resources and allocation, with the resize done.
func statusShows(p *corev1.Pod, r corev1.ResourceRequirements) bool {
	if p.Status.ObservedGeneration < p.Generation || len(p.Status.ContainerStatuses) == 0 {
		return false
	}
	if resizeCond(p, corev1.PodResizePending) != nil || resizeCond(p, corev1.PodResizeInProgress) != nil {
		return false
	}
	s := p.Status.ContainerStatuses[0]
	return s.Resources != nil && equality.Semantic.DeepEqual(*s.Resources, r) &&
		equality.Semantic.DeepEqual(s.AllocatedResources, r.Requests)
}

// The e2e "Pod InPlace Resize Container" flow on the Linux node: status
// shows what runs, a resize that fits is allocated, reported in progress
// and then applied; one that does not fit is Deferred with the kubelet's
// message.
func TestInPlaceResizeLinux(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := simplePod("resize", "linux-1", "nginx")
	first := resources("20m", "30m", "35Mi", "45Mi")
	pod.Spec.Containers[0].Resources = first
	createPod(t, ns, pod)
	p := waitPod(t, ns, "resize", 60*time.Second, "running with status resources", func(p *corev1.Pod) bool {
		return p.Status.Phase == corev1.PodRunning && statusShows(p, first)
	})
	wantPod := resources("20m", "30m", "35Mi", "45Mi")
	if p.Status.Resources == nil || !equality.Semantic.DeepEqual(*p.Status.Resources, wantPod) ||
		!equality.Semantic.DeepEqual(p.Status.AllocatedResources, wantPod.Requests) {
		t.Errorf("pod-level resources %+v allocated %v, want %+v", p.Status.Resources, p.Status.AllocatedResources, wantPod)
	}

	second := resources("25m", "35m", "40Mi", "50Mi")
	resizePatch(t, ns, "resize", "main", second)
	p = waitPod(t, ns, "resize", 30*time.Second, "resized", func(p *corev1.Pod) bool { return statusShows(p, second) })
	if p.Status.ObservedGeneration != 2 {
		t.Errorf("observedGeneration %d, want 2", p.Status.ObservedGeneration)
	}
	for _, c := range p.Status.Conditions {
		if c.ObservedGeneration != 2 {
			t.Errorf("condition %s observedGeneration %d, want 2", c.Type, c.ObservedGeneration)
		}
	}
	waitEvent(t, ns, "resize", podworker.EventResizeStarted, `"generation":2`, 10*time.Second)
	waitEvent(t, ns, "resize", podworker.EventResizeCompleted, `"generation":2`, 10*time.Second)

	// kube-apiserver itself refuses a resize beyond the node's allocatable
	// (and any resize on Windows); one that fits the node but not beside
	// the other pods reaches the kubelet, which defers it.
	other := simplePod("other", "linux-1", "nginx")
	other.Spec.Containers[0].Resources = resources("500m", "", "", "")
	createPod(t, ns, other)
	waitPod(t, ns, "other", 60*time.Second, "running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	big := resources("3900m", "3900m", "40Mi", "50Mi")
	resizePatch(t, ns, "resize", "main", big)
	p = waitPod(t, ns, "resize", 30*time.Second, "resize deferred", func(p *corev1.Pod) bool {
		c := resizeCond(p, corev1.PodResizePending)
		return c != nil && c.Reason == corev1.PodReasonDeferred && c.ObservedGeneration == 3
	})
	if c := resizeCond(p, corev1.PodResizePending); !strings.HasPrefix(c.Message, "Node didn't have enough resource: cpu, requested: 3900, used: ") {
		t.Errorf("pending message %q", c.Message)
	}
	if s := p.Status.ContainerStatuses[0]; !equality.Semantic.DeepEqual(*s.Resources, second) {
		t.Errorf("a deferred resize changed the status resources to %+v", *s.Resources)
	}
	waitEvent(t, ns, "resize", podworker.EventResizeDeferred, "Node didn't have enough resource", 10*time.Second)

	// Reverting the spec clears the pending resize.
	resizePatch(t, ns, "resize", "main", second)
	waitPod(t, ns, "resize", 30*time.Second, "pending resize cleared", func(p *corev1.Pod) bool { return statusShows(p, second) })
}
