package cluster

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/deploy"
	"github.com/winkube/winkube/pkg/windows"
)

// podRowsUpTo: a workload with at most this many pods gets a row per pod
// under its summary line; a larger one only the summary, so a Deployment
// of 500 replicas is one line, not 500.
const podRowsUpTo = 5

// workloadOf is deploy.WorkloadOf, plus Jobs whose selector the API server
// generates (almost all of them): their pods carry the Job's name.
func workloadOf(obj *unstructured.Unstructured) (deploy.Workload, bool) {
	if w, ok := deploy.WorkloadOf(obj); ok {
		return w, true
	}
	if obj.GetKind() != "Job" {
		return deploy.Workload{}, false
	}
	sel := labels.SelectorFromSet(labels.Set{batchv1.JobNameLabel: obj.GetName()})
	return deploy.Workload{Kind: "Job", Namespace: obj.GetNamespace(), Name: obj.GetName(), Selector: sel, Want: 1}, true
}

// placed is a workload with its pods.
type placed struct {
	deploy.Workload
	pods []corev1.Pod
}

// reportPlacement waits until the pods of every workload have settled
// (deploy.Settled) or until timeout, then prints one summary line per
// workload, with a row per pod for the small ones.
func reportPlacement(ctx context.Context, cs kubernetes.Interface, ws []deploy.Workload, timeout time.Duration, out io.Writer) error {
	deadline := time.Now().Add(timeout)
	for {
		got, settled, err := collectPods(ctx, cs, ws)
		if err != nil {
			return err
		}
		if settled || time.Now().After(deadline) {
			return printPlacement(ctx, cs, got, out)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func collectPods(ctx context.Context, cs kubernetes.Interface, ws []deploy.Workload) ([]placed, bool, error) {
	all := make([]placed, 0, len(ws))
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
		p := placed{Workload: w}
		for _, pod := range list.Items {
			if pod.DeletionTimestamp != nil {
				continue
			}
			p.pods = append(p.pods, pod)
			settled = settled && deploy.Settled(&pod)
		}
		settled = settled && len(p.pods) >= w.Want
		all = append(all, p)
	}
	return all, settled, nil
}

func printPlacement(ctx context.Context, cs kubernetes.Interface, ws []placed, out io.Writer) error {
	osOf := nodeOSCache(ctx, cs)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, w := range ws {
		sort.Slice(w.pods, func(i, j int) bool { return w.pods[i].Name < w.pods[j].Name })
		fmt.Fprintf(tw, "  %s/%s: %s\n", w.Kind, w.Name, summarise(w.pods, osOf))
		if len(w.pods) > podRowsUpTo {
			continue
		}
		for i := range w.pods {
			p := &w.pods[i]
			fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\t%s\n", p.Name, orDash(p.Spec.NodeName), orDash(osOf(p.Spec.NodeName)), deploy.Status(p), orDash(p.Status.PodIP))
		}
	}
	return tw.Flush()
}

// summarise says how many pods are in which state on which kind of node:
// "3 pods: 2 Running on windows 10.0.17763 (win2019-0, win2019-1), 1 Pending (Unschedulable)".
func summarise(pods []corev1.Pod, osOf func(string) string) string {
	if len(pods) == 0 {
		return "no pods yet"
	}
	type group struct {
		key   string
		count int
		nodes []string
	}
	var groups []*group
	byKey := map[string]*group{}
	for i := range pods {
		p := &pods[i]
		key := deploy.Status(p)
		if os := osOf(p.Spec.NodeName); os != "" {
			key += " on " + os
		}
		g := byKey[key]
		if g == nil {
			g = &group{key: key}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.count++
		if n := p.Spec.NodeName; n != "" && !contains(g.nodes, n) {
			g.nodes = append(g.nodes, n)
		}
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].count > groups[j].count })
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = fmt.Sprintf("%d %s%s", g.count, g.key, nodeList(g.nodes))
	}
	return fmt.Sprintf("%s: %s", plural(len(pods), "pod"), strings.Join(parts, ", "))
}

// nodeList names up to three nodes, then how many more.
func nodeList(nodes []string) string {
	if len(nodes) == 0 {
		return ""
	}
	sort.Strings(nodes)
	if len(nodes) > 3 {
		return fmt.Sprintf(" (%s and %d more nodes)", strings.Join(nodes[:3], ", "), len(nodes)-3)
	}
	return " (" + strings.Join(nodes, ", ") + ")"
}

// nodeOSCache describes nodes' OS from their labels, e.g. "windows
// 10.0.17763", reading each node once.
func nodeOSCache(ctx context.Context, cs kubernetes.Interface) func(string) string {
	seen := map[string]string{}
	return func(name string) string {
		if name == "" {
			return ""
		}
		if os, ok := seen[name]; ok {
			return os
		}
		os := ""
		if n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{}); err == nil {
			h := windows.HostOf(n)
			os = h.OS
			if h.IsWindows() && !h.Build.IsZero() {
				os += " " + h.Build.Label()
			}
		}
		seen[name] = os
		return os
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
