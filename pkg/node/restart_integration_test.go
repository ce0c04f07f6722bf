package node

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

// startPool starts a separate agent with one untainted pool of one node.
func startPool(t *testing.T, pool v1alpha1.NodePool, mgmt string) *Agent {
	t.Helper()
	return startPoolWith(t, pool, mgmt, Options{})
}

// startPoolWith is startPool with the agent's other options o.
func startPoolWith(t *testing.T, pool v1alpha1.NodePool, mgmt string, o Options) *Agent {
	t.Helper()
	c := &v1alpha1.Cluster{NodePools: []v1alpha1.NodePool{pool}}
	v1alpha1.SetDefaults(c)
	c.Network.ManagementCIDR = mgmt
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o.Config, o.Cluster = restConfig, c
	a, err := Start(ctx, o)
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

// A second Start runs again the programs of the containers it adopts: the
// status stays as the first agent wrote it (same container, no restart, no
// Started event) and the program's output is back in the container's log.
// A container whose program cannot run again (its ConfigMap went while the
// agent was down) keeps running idle and says why; one timed by the pod's
// annotations still exits, counted from its first start.
func TestRestartResumesPrograms(t *testing.T) {
	needCluster(t)
	ctx := context.Background()
	pool := v1alpha1.NodePool{Name: "resume", OS: v1alpha1.OSLinux, Count: ptr.To(1)}
	first := startPool(t, pool, "10.127.137.0/24")
	ns := newNamespace(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Data: map[string]string{"word": "hi"}}
	if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, pod := range resumePods() {
		createPod(t, ns, pod)
	}
	running := func(p *corev1.Pod) bool {
		return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].State.Running != nil
	}
	before := map[string]corev1.ContainerStatus{}
	for _, name := range []string{"loop", "cfg", "timed"} {
		before[name] = waitPod(t, ns, name, 30*time.Second, "Running", running).Status.ContainerStatuses[0]
	}
	first.Close()
	if err := client.CoreV1().ConfigMaps(ns).Delete(ctx, "cfg", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	second := startPool(t, pool, "10.127.137.0/24")
	defer second.Close()
	// The test's API server cannot resolve node names, so the log is read
	// from the second agent's kubelet API as the API server would.
	kubelet := agentKubeletClient(second)
	url := "https://resume-1:10250/containerLogs/" + ns + "/loop/main"
	var log string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 15*time.Second, true, func(ctx context.Context) (bool, error) {
		_, log = get(t, kubelet, url)
		return strings.Contains(log, "started"), nil
	})
	if err != nil {
		t.Fatalf("log of the adopted container %q, want it to contain %q: %v", log, "started", err)
	}
	waitEvent(t, ns, "cfg", "ResumeFailed", `configmap "cfg" not found`, 15*time.Second)
	for _, name := range []string{"loop", "cfg"} {
		p, err := client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		assertSameRun(t, name, before[name], p.Status.ContainerStatuses[0])
		if n := startedEvents(t, ns, name); n > 1 {
			t.Errorf("pod %s: %d Started events, want the first start's only", name, n)
		}
	}
	timed := waitPod(t, ns, "timed", 15*time.Second, "Succeeded", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodSucceeded })
	if id := timed.Status.ContainerStatuses[0].ContainerID; id != before["timed"].ContainerID {
		t.Errorf("timed container %s, want the adopted %s", id, before["timed"].ContainerID)
	}
}

// resumePods are the pods TestRestartResumesPrograms adopts: a program
// that prints and loops, one that needs a ConfigMap key to start, and one
// the pod's annotations time.
func resumePods() []*corev1.Pod {
	loop := simplePod("loop", "resume-1", busybox)
	loop.Spec.Containers[0].Command = []string{"sh", "-c", "echo started; while true; do sleep 1; done"}
	cfg := simplePod("cfg", "resume-1", busybox)
	cfg.Spec.Containers[0].Command = loop.Spec.Containers[0].Command
	cfg.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "WORD", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}, Key: "word"}}}}
	timed := simplePod("timed", "resume-1", busybox)
	timed.Annotations = map[string]string{AnnotationRunSeconds: "4"}
	timed.Spec.RestartPolicy = corev1.RestartPolicyNever
	return []*corev1.Pod{loop, cfg, timed}
}

// assertSameRun checks that an adopted container is the run it was.
func assertSameRun(t *testing.T, name string, before, after corev1.ContainerStatus) {
	t.Helper()
	if after.ContainerID != before.ContainerID || after.RestartCount != 0 || after.State.Running == nil ||
		before.State.Running == nil || !after.State.Running.StartedAt.Equal(&before.State.Running.StartedAt) {
		t.Errorf("pod %s: adopted container changed: before %s restarts %d %+v, after %s restarts %d %+v", name,
			before.ContainerID, before.RestartCount, before.State, after.ContainerID, after.RestartCount, after.State)
	}
}

// startedEvents counts the Started events of a pod.
func startedEvents(t *testing.T, ns, name string) int32 {
	n := int32(0)
	for _, e := range podEvents(t, ns, name) {
		if e.Reason == "Started" {
			n += max(e.Count, 1)
		}
	}
	return n
}

// agentKubeletClient reaches the kubelet API of a's nodes.
func agentKubeletClient(a *Agent) *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // as the apiserver without --kubelet-certificate-authority
		DialContext: func(_ context.Context, _, addr string) (net.Conn, error) {
			conn, ok, err := a.DialKubelet(addr)
			if !ok && err == nil {
				err = fmt.Errorf("%s is not a node of the agent", addr)
			}
			return conn, err
		},
	}}
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
