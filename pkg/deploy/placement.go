package deploy

import (
	"context"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/windows"
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

// Report waits until the pods of every workload have settled — running and
// ready, finished, or stuck in a state a user must act on — or until
// timeout, then prints where they landed.
func Report(ctx context.Context, cs kubernetes.Interface, ws []Workload, timeout time.Duration, out io.Writer) error {
	deadline := time.Now().Add(timeout)
	var pods []corev1.Pod
	for {
		var settled bool
		var err error
		pods, settled, err = collect(ctx, cs, ws)
		if err != nil {
			return err
		}
		if settled || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	return printPods(ctx, cs, pods, out)
}

func collect(ctx context.Context, cs kubernetes.Interface, ws []Workload) ([]corev1.Pod, bool, error) {
	var all []corev1.Pod
	settled := true
	for _, w := range ws {
		opts := metav1.ListOptions{LabelSelector: w.Selector.String()}
		if w.Kind == "Pod" {
			opts = metav1.ListOptions{FieldSelector: "metadata.name=" + w.Name}
		}
		list, err := cs.CoreV1().Pods(w.Namespace).List(ctx, opts)
		if err != nil {
			return nil, false, fmt.Errorf("listing pods of %s %s: %w", w.Kind, w.Name, err)
		}
		live := 0
		for _, p := range list.Items {
			if p.DeletionTimestamp != nil {
				continue
			}
			live++
			all = append(all, p)
			settled = settled && Settled(&p)
		}
		settled = settled && live >= w.Want
	}
	return all, settled, nil
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

func printPods(ctx context.Context, cs kubernetes.Interface, pods []corev1.Pod, out io.Writer) error {
	sort.Slice(pods, func(i, j int) bool { return pods[i].Namespace+"/"+pods[i].Name < pods[j].Namespace+"/"+pods[j].Name })
	osOf := map[string]string{}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  POD\tNODE\tOS\tSTATUS\tIP")
	for i := range pods {
		p := &pods[i]
		node := p.Spec.NodeName
		if _, ok := osOf[node]; !ok && node != "" {
			osOf[node] = nodeOS(ctx, cs, node)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", p.Name, orDash(node), orDash(osOf[node]), Status(p), orDash(p.Status.PodIP))
	}
	return tw.Flush()
}

// nodeOS describes a node's OS from its labels, e.g. "windows 10.0.17763".
func nodeOS(ctx context.Context, cs kubernetes.Interface, name string) string {
	n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	h := windows.HostOf(n)
	if h.IsWindows() && !h.Build.IsZero() {
		return h.OS + " " + h.Build.Label()
	}
	return h.OS
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
