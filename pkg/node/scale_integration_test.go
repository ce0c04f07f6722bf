//go:build linux

package node

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

// requestCounter counts the requests an agent sends about the objects of
// one namespace: pod writes and reads, and events.
type requestCounter struct {
	ns string

	mu        sync.Mutex
	pods      int
	events    int
	conflicts int
	byVerb    map[string]int
}

func (c *requestCounter) RoundTrip(next http.RoundTripper, req *http.Request) (*http.Response, error) {
	resp, err := next.RoundTrip(req)
	c.mu.Lock()
	defer c.mu.Unlock()
	prefix := "/api/v1/namespaces/" + c.ns + "/"
	if c.ns == "" || !strings.HasPrefix(req.URL.Path, prefix) {
		return resp, err
	}
	rest := strings.TrimPrefix(req.URL.Path, prefix)
	switch {
	case strings.HasPrefix(rest, "pods"):
		c.pods++
		sub := ""
		if strings.HasSuffix(rest, "/status") {
			sub = "/status"
		}
		c.byVerb[req.Method+" pods"+sub]++
		if err == nil && resp.StatusCode == http.StatusConflict {
			c.conflicts++
		}
	case strings.HasPrefix(rest, "events"):
		c.events++
	}
	return resp, err
}

// wrap installs the counter on a copy of cfg.
func (c *requestCounter) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) { return c.RoundTrip(next, req) })
	})
	return cfg
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// startCounted starts a separate agent for pool whose requests about ns
// go through counter.
func startCounted(t testing.TB, pool v1alpha1.NodePool, mgmt string, counter *requestCounter) *Agent {
	t.Helper()
	c := &v1alpha1.Cluster{NodePools: []v1alpha1.NodePool{pool}}
	v1alpha1.SetDefaults(c)
	c.Network.ManagementCIDR = mgmt
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, err := Start(ctx, Options{Config: counter.wrap(restConfig), Cluster: c})
	if err != nil {
		t.Fatalf("start agent: %v", err)
	}
	select {
	case <-a.Ready():
	case <-ctx.Done():
		a.Close()
		t.Fatal("nodes not Ready within two minutes")
	}
	return a
}

// runPods creates n pods spread over the nodes, waits until all are
// Running and Ready, and returns the number of goroutines then.
func runPods(t testing.TB, ns string, nodes []string, n int) int {
	return runImagePods(t, ns, nodes, n, iis2022)
}

// runImagePods is runPods with pods of image.
func runImagePods(t testing.TB, ns string, nodes []string, n int, image string) int {
	t.Helper()
	for i := range n {
		// IIS runs ServiceMonitor.exe and nginx its server: daemons that
		// cost no goroutine.
		pod := simplePod(fmt.Sprintf("p%d", i), nodes[i%len(nodes)], image)
		if _, err := client.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create pod %s: %v", pod.Name, err)
		}
	}
	var notReady *corev1.Pod
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil || len(list.Items) != n {
			return false, nil
		}
		for i := range list.Items {
			if !podReady(&list.Items[i]) {
				notReady = list.Items[i].DeepCopy() // not the whole list
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("waiting for %d pods Running and Ready: %v; one not Ready: %+v", n, err, statusOf(notReady))
	}
	return runtime.NumGoroutine()
}

// deletePods deletes every pod of ns and waits until they are gone. A
// DeleteCollection of thousands of pods can outlast the request timeout;
// it is sent again until one goes through.
func deletePods(t testing.TB, ns string) {
	t.Helper()
	deleted := false
	var lastErr error
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
		if !deleted {
			lastErr = client.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
			deleted = lastErr == nil
		}
		list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		return err == nil && len(list.Items) == 0, nil
	})
	if err != nil {
		t.Fatalf("waiting for all pods gone: %v (last delete: %v)", err, lastErr)
	}
}

// One pod's life on a Windows node, from creation to its final delete,
// costs the agent a handful of pod requests: each status transition is one
// write, the Windows resources annotation (KLT-5) rides on one of them, and
// no write is refused with a conflict. Running pods hold no goroutine of
// their own. The pod count can be raised with WINKUBE_COUNT_PODS.
//
// rule: KLT-5
func TestRequestsPerPod(t *testing.T) {
	needCluster(t)
	pods := 40
	if v, err := strconv.Atoi(os.Getenv("WINKUBE_COUNT_PODS")); err == nil && v > 0 {
		pods = v
	}
	const nodes = 4
	ns := newNamespace(t)
	counter := &requestCounter{ns: ns, byVerb: map[string]int{}}
	pool := v1alpha1.NodePool{Name: "count", OS: v1alpha1.OSWindows, Release: "2022", Count: ptr.To(nodes), Taints: []corev1.Taint{}, MaxPods: 250}
	a := startCounted(t, pool, "10.127.134.0/24", counter)
	defer a.Close()

	defer func() {
		if t.Failed() {
			counter.mu.Lock()
			t.Logf("requests so far: %v, %d events", counter.byVerb, counter.events)
			counter.mu.Unlock()
		}
	}()
	idle := runtime.NumGoroutine()
	running := runPods(t, ns, a.NodeNames(), pods)
	deletePods(t, ns)

	counter.mu.Lock()
	defer counter.mu.Unlock()
	perPod := float64(counter.pods) / float64(pods)
	t.Logf("%d pods on %d nodes: %.2f pod requests per pod (%v), %d conflicts, %.2f events per pod; goroutines %d idle, %d with the pods Running (%+d)",
		pods, nodes, perPod, counter.byVerb, counter.conflicts, float64(counter.events)/float64(pods), idle, running, running-idle)
	if counter.conflicts > 0 {
		t.Errorf("%d pod writes refused with 409 Conflict, want none", counter.conflicts)
	}
	// Running (the annotation with it), terminated, and the final delete:
	// three requests, with one spare for a pod whose pull shows Pending
	// first or that syncs an extra time.
	if perPod > 4 {
		t.Errorf("%.2f pod requests per pod (%v), want at most 4", perPod, counter.byVerb)
	}
	if grown := running - idle; grown > pods/2 {
		t.Errorf("goroutines grew by %d with %d pods Running, want far fewer than one per pod", grown, pods)
	}
}

// BenchmarkPodLifecycle starts WINKUBE_BENCH_PODS Windows pods (default
// 200) on a pool of a separate agent (10 nodes, one more per 100 pods
// beyond 1,000), waits until all are Running and Ready, deletes them and
// waits until they are gone. It reports pods per second both ways, pod
// requests per pod, goroutines and heap bytes per Running pod, and writes
// a heap profile with the pods Running to WINKUBE_HEAP_PROFILE, if set
// (and the goroutines' stacks to WINKUBE_GOROUTINE_PROFILE).
// WINKUBE_BENCH_LINUX=1 runs nginx on a Linux pool instead, the Linux
// quarter of hack/bench-scale.sh's workload.
// Run it with -run '^$' -bench PodLifecycle -benchtime 1x.
func BenchmarkPodLifecycle(b *testing.B) {
	if client == nil {
		b.Skip("needs the control plane (not in -short mode)")
	}
	pods := 200
	if v, err := strconv.Atoi(os.Getenv("WINKUBE_BENCH_PODS")); err == nil && v > 0 {
		pods = v
	}
	nodes := max(10, pods/100)
	counter := &requestCounter{byVerb: map[string]int{}}
	pool := v1alpha1.NodePool{Name: "bench", OS: v1alpha1.OSWindows, Release: "2022", Count: ptr.To(nodes), Taints: []corev1.Taint{}, MaxPods: 250}
	image := iis2022
	if os.Getenv("WINKUBE_BENCH_LINUX") == "1" {
		pool.OS, pool.Release, image = v1alpha1.OSLinux, "", "nginx:1.27"
	}
	a := startCounted(b, pool, "10.127.135.0/24", counter)
	defer a.Close()
	var running, deleted time.Duration
	var grown int
	var heap uint64
	for i := range b.N {
		ns, err := client.CoreV1().Namespaces().Create(context.Background(),
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%d-%d", time.Now().Unix(), i)}}, metav1.CreateOptions{})
		if err != nil {
			b.Fatalf("create namespace: %v", err)
		}
		counter.mu.Lock()
		counter.ns = ns.Name
		counter.mu.Unlock()
		idle := runtime.NumGoroutine()
		began := time.Now()
		heap0 := liveHeap()
		grown += runImagePods(b, ns.Name, a.NodeNames(), pods, image) - idle
		running += time.Since(began)
		if after := liveHeap(); after > heap0 {
			heap += after - heap0
		}
		writeProfiles(b)
		began = time.Now()
		deletePods(b, ns.Name)
		deleted += time.Since(began)
		_ = client.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	}
	total := float64(b.N * pods)
	counter.mu.Lock()
	defer counter.mu.Unlock()
	b.ReportMetric(total/running.Seconds(), "pods-running/s")
	b.ReportMetric(total/deleted.Seconds(), "pods-deleted/s")
	b.ReportMetric(float64(counter.pods)/total, "requests/pod")
	b.ReportMetric(float64(grown)/total, "goroutines/pod")
	b.ReportMetric(float64(heap)/total, "heap-B/pod")
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// writeProfiles writes the heap profile to the file named by
// WINKUBE_HEAP_PROFILE and the goroutines' stacks to the one named by
// WINKUBE_GOROUTINE_PROFILE, each if set.
func writeProfiles(b *testing.B) {
	writeProfile(b, "goroutine", os.Getenv("WINKUBE_GOROUTINE_PROFILE"), 1)
	writeProfile(b, "heap", os.Getenv("WINKUBE_HEAP_PROFILE"), 0)
}

// writeProfile writes the named runtime profile to path, unless path is
// empty.
func writeProfile(b *testing.B, name, path string, debug int) {
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatalf("create %s profile: %v", name, err)
	}
	defer f.Close()
	if err := pprof.Lookup(name).WriteTo(f, debug); err != nil {
		b.Fatalf("write %s profile: %v", name, err)
	}
}

// BenchmarkNodesIdle starts WINKUBE_BENCH_NODES Linux nodes (default 200)
// on a separate agent, reports how long they take to be Ready, then lets
// them idle for 30 s and reports the CPU this process (the agent; the
// control plane runs in child processes) spends meanwhile, as a share of
// one core, and the goroutines per node. Run it with -run '^$' -bench
// NodesIdle -benchtime 1x.
func BenchmarkNodesIdle(b *testing.B) {
	if client == nil {
		b.Skip("needs the control plane (not in -short mode)")
	}
	nodes := 200
	if v, err := strconv.Atoi(os.Getenv("WINKUBE_BENCH_NODES")); err == nil && v > 0 {
		nodes = v
	}
	const idle = 30 * time.Second
	for range b.N {
		before := runtime.NumGoroutine()
		began := time.Now()
		pool := v1alpha1.NodePool{Name: "idle", OS: v1alpha1.OSLinux, Count: ptr.To(nodes)}
		a := startCounted(b, pool, "10.127.136.0/24", &requestCounter{byVerb: map[string]int{}})
		ready := time.Since(began)
		cpu0 := processCPU(b)
		stop := profileIdle(b)
		time.Sleep(idle)
		stop()
		cpu := processCPU(b) - cpu0
		grown := runtime.NumGoroutine() - before
		a.Close()
		b.ReportMetric(ready.Seconds(), "s-to-ready")
		b.ReportMetric(100*cpu.Seconds()/idle.Seconds(), "idle-cpu-%")
		b.ReportMetric(float64(grown)/float64(nodes), "goroutines/node")
	}
}

// processCPU is the user and system time this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// profileIdle writes a CPU profile of the idle period to the file named by
// WINKUBE_IDLE_PROFILE, if set; the returned func ends it.
func profileIdle(b *testing.B) func() {
	path := os.Getenv("WINKUBE_IDLE_PROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatalf("create profile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatalf("start profile: %v", err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
