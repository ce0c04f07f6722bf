package node

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/winkube/winkube/pkg/node/internal/status"
)

// What each node writes is recorded under its kubelet's field manager,
// named after the binary the node runs the kubelet from: its Node and the
// node's status, its Lease, the status of its pods and its events.
//
// rule: KLT-12
func TestKubeletWritesCarryTheKubeletsName(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	for _, c := range []struct{ node, image, manager string }{
		{"win2022-1", servercore2022, "kubelet.exe"},
		{"linux-1", busybox, "kubelet"},
	} {
		pod := simplePod("on-"+c.node, c.node, c.image)
		if c.image == busybox {
			pod.Spec.Containers[0].Command = []string{"sleep", "3600"}
		}
		createPod(t, ns, pod)
		running := waitPod(t, ns, pod.Name, time.Minute, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
		node, err := client.CoreV1().Nodes().Get(context.Background(), c.node, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lease, err := client.CoordinationV1().Leases(status.LeaseNamespace).Get(context.Background(), c.node, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		events, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("source", "kubelet").String()})
		if err != nil {
			t.Fatal(err)
		}
		for what, entries := range map[string][]metav1.ManagedFieldsEntry{
			"node": managedBy(node.ManagedFields, ""), "node status": managedBy(node.ManagedFields, "status"),
			"lease": managedBy(lease.ManagedFields, ""), "pod status": managedBy(running.ManagedFields, "status"),
			"event": eventManagers(events.Items, c.node),
		} {
			if len(entries) == 0 {
				t.Errorf("%s: the %s has no managed fields", c.node, what)
			}
			for _, e := range entries {
				if e.Manager != c.manager && e.Manager != "kube-controller-manager" {
					t.Errorf("%s: the %s's fields are managed by %q, want %q", c.node, what, e.Manager, c.manager)
				}
			}
		}
	}
}

// managedBy keeps the entries for one subresource ("" for the object).
func managedBy(entries []metav1.ManagedFieldsEntry, subresource string) []metav1.ManagedFieldsEntry {
	var out []metav1.ManagedFieldsEntry
	for _, e := range entries {
		if e.Subresource == subresource {
			out = append(out, e)
		}
	}
	return out
}

// eventManagers are the managed fields of the events a node's kubelet wrote.
func eventManagers(events []corev1.Event, node string) []metav1.ManagedFieldsEntry {
	var out []metav1.ManagedFieldsEntry
	for _, e := range events {
		if e.Source.Host == node {
			out = append(out, e.ManagedFields...)
		}
	}
	return out
}
