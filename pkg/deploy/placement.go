package deploy

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

// Workload is an applied object that makes pods.
type Workload struct {
	Kind, Namespace, Name string
	Selector              labels.Selector
	Want                  int // pods expected; at least one
}

// WorkloadOf recognises the pod-making kinds whose pods can be found by
// their label selector.
func WorkloadOf(obj *unstructured.Unstructured) (Workload, bool) {
	w := Workload{Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName(), Want: 1}
	switch w.Kind {
	case "Deployment", "ReplicaSet", "StatefulSet", "ReplicationController":
		if r, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "replicas"); found {
			w.Want = toInt(r)
		}
	case "DaemonSet", "Job":
	case "Pod":
		w.Selector = labels.Everything()
		return w, true
	default:
		return w, false
	}
	sel, err := selectorOf(obj)
	if err != nil || sel.Empty() {
		return w, false
	}
	w.Selector = sel
	return w, w.Want > 0
}

// toInt reads a number decoded from JSON (int64) or plain YAML (float64).
func toInt(v interface{}) int {
	switch n := v.(type) {
	case int64:
		return int(n)
	case int:
		return n
	case float64:
		return int(n)
	}
	return 1
}

func selectorOf(obj *unstructured.Unstructured) (labels.Selector, error) {
	if obj.GetKind() == "ReplicationController" {
		m, _, _ := unstructured.NestedStringMap(obj.Object, "spec", "selector")
		return labels.SelectorFromSet(m), nil
	}
	raw, _, _ := unstructured.NestedMap(obj.Object, "spec", "selector")
	ls := &metav1.LabelSelector{}
	if err := runtimeFromMap(raw, ls); err != nil {
		return nil, err
	}
	return metav1.LabelSelectorAsSelector(ls)
}

// Settled reports whether a pod reached a state that will not change
// without a user's action.
func Settled(p *corev1.Pod) bool {
	switch p.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed:
		return true
	case corev1.PodRunning:
		return podReady(p)
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	switch Status(p) {
	case "ImagePullBackOff", "ErrImagePull", "CreateContainerError", "CrashLoopBackOff", "InvalidImageName":
		return true
	}
	return false
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// Status is the pod's one-word state as kubectl's STATUS column shows it.
func Status(p *corev1.Pod) string {
	if p.Status.Reason != "" {
		return p.Status.Reason
	}
	for _, cs := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
		if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "PodInitializing" {
			return w.Reason
		}
	}
	if p.Status.Phase == corev1.PodPending {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				return "Pending (" + c.Reason + ")"
			}
		}
		if p.Spec.NodeName != "" {
			return "ContainerCreating"
		}
	}
	if p.Status.Phase == corev1.PodSucceeded {
		return "Completed"
	}
	return string(p.Status.Phase)
}
