// Package describe prints a pod the way a Windows user needs to see it:
// where it runs, its state, its events, and what the Windows runtime was
// given for each container (KLT-5, KLT-6, KLT-7).
package describe

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/deploy"
)

// Pod prints namespace/name to out.
func Pod(ctx context.Context, cs kubernetes.Interface, namespace, name string, out io.Writer) error {
	pod, err := cs.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("getting pod %s/%s: %w", namespace, name, err)
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "Name:\t%s\nNamespace:\t%s\n", pod.Name, pod.Namespace)
	fmt.Fprintf(w, "Node:\t%s\n", nodeLine(ctx, cs, pod.Spec.NodeName))
	fmt.Fprintf(w, "Status:\t%s\n", deploy.Status(pod))
	if pod.Status.Message != "" {
		fmt.Fprintf(w, "Message:\t%s\n", pod.Status.Message)
	}
	fmt.Fprintf(w, "IP:\t%s\n", orNone(pod.Status.PodIP))
	w.Flush()
	printContainers(out, pod)
	return printEvents(ctx, cs, pod, out)
}

func nodeLine(ctx context.Context, cs kubernetes.Interface, name string) string {
	if name == "" {
		return "<none>"
	}
	n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return name
	}
	info := n.Status.NodeInfo
	return fmt.Sprintf("%s (%s, %s, kernel %s, %s)", name, info.OperatingSystem, info.OSImage, info.KernelVersion, info.ContainerRuntimeVersion)
}

func printContainers(out io.Writer, pod *corev1.Pod) {
	runtime := annotations.DecodeWindowsResources(pod.Annotations)
	states := map[string]corev1.ContainerStatus{}
	for _, s := range append(pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses...) {
		states[s.Name] = s
	}
	fmt.Fprintln(out, "Containers:")
	for _, c := range append(pod.Spec.InitContainers, pod.Spec.Containers...) {
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintf(w, "  %s:\n", c.Name)
		fmt.Fprintf(w, "    Image:\t%s\n", c.Image)
		fmt.Fprintf(w, "    State:\t%s\n", state(states[c.Name]))
		fmt.Fprintf(w, "    Limits:\t%s\n", resources(c.Resources.Limits))
		fmt.Fprintf(w, "    Requests:\t%s\n", resources(c.Resources.Requests))
		if cfg, ok := runtime[c.Name]; ok {
			fmt.Fprintf(w, "    Windows runtime:\t%s\n", cfg)
		}
		w.Flush()
	}
}

func state(s corev1.ContainerStatus) string {
	switch {
	case s.State.Running != nil:
		return "Running since " + s.State.Running.StartedAt.Format(time.RFC3339)
	case s.State.Waiting != nil:
		return strings.TrimSpace("Waiting: " + s.State.Waiting.Reason + " " + s.State.Waiting.Message)
	case s.State.Terminated != nil:
		return fmt.Sprintf("Terminated: %s (exit code %d)", s.State.Terminated.Reason, s.State.Terminated.ExitCode)
	}
	return "<unknown>"
}

func resources(rl corev1.ResourceList) string {
	if len(rl) == 0 {
		return "<none>"
	}
	var parts []string
	for name, q := range rl {
		parts = append(parts, fmt.Sprintf("%s=%s", name, q.String()))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func printEvents(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod, out io.Writer) error {
	sel := fields.Set{"involvedObject.name": pod.Name, "involvedObject.uid": string(pod.UID)}.AsSelector().String()
	events, err := cs.CoreV1().Events(pod.Namespace).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		return fmt.Errorf("listing events of pod %s: %w", pod.Name, err)
	}
	// Event names end in the creation time in hex nanoseconds, so name order
	// is creation order; timestamps alone have only second precision.
	items := events.Items
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	fmt.Fprintln(out, "Events:")
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  TYPE\tREASON\tFROM\tMESSAGE")
	for _, e := range items {
		from := e.Source.Component
		if from == "" {
			from = e.ReportingController
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", e.Type, e.Reason, from, e.Message)
	}
	return w.Flush()
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
