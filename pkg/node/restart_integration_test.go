package node

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

// startPool starts a separate agent with one untainted pool of one node.
func startPool(t *testing.T, pool v1alpha1.NodePool, mgmt string) *Agent {
	t.Helper()
	c := &v1alpha1.Cluster{NodePools: []v1alpha1.NodePool{pool}}
	v1alpha1.SetDefaults(c)
	c.Network.ManagementCIDR = mgmt
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := Start(ctx, Options{Config: restConfig, Cluster: c})
	if err != nil {
		t.Fatalf("start agent: %v", err)
	}
	select {
	case <-a.Ready():
	case <-ctx.Done():
		a.Close()
		t.Fatal("nodes not Ready within a minute")
	}
	return a
}

// A second Start adopts the pods of the first: they stay Running with the
// same container and address, and new pods never get an address in use.
func TestRestartAdoptsPods(t *testing.T) {
	needCluster(t)
	pool := v1alpha1.NodePool{Name: "restart", OS: v1alpha1.OSLinux, Count: ptr.To(1)}
	first := startPool(t, pool, "10.127.132.0/24")
	ns := newNamespace(t)
	createPod(t, ns, simplePod("web", "restart-1", "nginx"))
	before := waitPod(t, ns, "web", 30*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	node, _ := client.CoreV1().Nodes().Get(context.Background(), "restart-1", metav1.GetOptions{})
	readySince := readyCondition(node).LastTransitionTime
	first.Close()

	second := startPool(t, pool, "10.127.132.0/24")
	defer second.Close()
	createPod(t, ns, simplePod("web2", "restart-1", "nginx"))
	after := waitPod(t, ns, "web2", 30*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	web, _ := client.CoreV1().Pods(ns).Get(context.Background(), "web", metav1.GetOptions{})
	if web.Status.Phase != corev1.PodRunning || web.Status.PodIP != before.Status.PodIP ||
		web.Status.ContainerStatuses[0].ContainerID != before.Status.ContainerStatuses[0].ContainerID {
		t.Errorf("adopted pod changed: before %s %s, after %s %s", before.Status.PodIP, before.Status.ContainerStatuses[0].ContainerID,
			web.Status.PodIP, web.Status.ContainerStatuses[0].ContainerID)
	}
	if after.Status.PodIP == web.Status.PodIP {
		t.Errorf("new pod got the adopted pod's address %s", after.Status.PodIP)
	}
	node, _ = client.CoreV1().Nodes().Get(context.Background(), "restart-1", metav1.GetOptions{})
	if got := readyCondition(node).LastTransitionTime; !got.Equal(&readySince) {
		t.Errorf("node Ready flapped across the restart: transition %s -> %s", readySince, got)
	}
}

func readyCondition(n *corev1.Node) corev1.NodeCondition {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c
		}
	}
	return corev1.NodeCondition{}
}

// TestManyPodsStartOnOneNode starts more pods than a node's pull and start
// paths handle at once: every one must reach Running with its own IP from
// the node's pod CIDR. How fast they get there is not asserted; that
// belongs in a benchmark.
func TestManyPodsStartOnOneNode(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	const n = 40
	for i := 0; i < n; i++ {
		createPod(t, ns, simplePod(fmt.Sprintf("p%d", i), "linux-1", "nginx"))
	}
	var pods []corev1.Pod
	waitFor(t, 2*time.Minute, "all pods Running", func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		pods = list.Items
		for _, p := range pods {
			if p.Status.Phase != corev1.PodRunning {
				return false, nil
			}
		}
		return len(pods) == n, nil
	})
	node, err := client.CoreV1().Nodes().Get(context.Background(), "linux-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, cidr, err := net.ParseCIDR(node.Spec.PodCIDR)
	if err != nil {
		t.Fatalf("node linux-1 podCIDR %q: %v", node.Spec.PodCIDR, err)
	}
	seen := map[string]string{}
	for _, p := range pods {
		ip := net.ParseIP(p.Status.PodIP)
		if ip == nil || !cidr.Contains(ip) {
			t.Errorf("pod %s has IP %q, want one in %s", p.Name, p.Status.PodIP, cidr)
		}
		if other, dup := seen[p.Status.PodIP]; dup {
			t.Errorf("pods %s and %s share IP %s", other, p.Name, p.Status.PodIP)
		}
		seen[p.Status.PodIP] = p.Name
	}
}
