package node

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	spdystream "k8s.io/apimachinery/pkg/util/httpstream/spdy"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"

	"github.com/winkube/winkube/pkg/emu/vnet"
	"github.com/winkube/winkube/pkg/network/reach"
)

const agnhostImage = "registry.k8s.io/e2e-test-images/agnhost:2.53"

// webPod is agnhost netexec on 8080 behind the Service "web" (80 → 8080).
func webPod(t *testing.T, ns, node string) *corev1.Pod {
	t.Helper()
	pod := simplePod("web", node, agnhostImage)
	pod.Labels = map[string]string{"app": "web"}
	pod.Spec.Containers[0].Args = []string{"netexec", "--http-port=8080"}
	pod.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}, PeriodSeconds: 1}
	createPod(t, ns, pod)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{
		Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	if _, err := client.CoreV1().Services(ns).Create(context.Background(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return waitPod(t, ns, "web", 60*time.Second, "Ready", podReady)
}

// Bytes flow between emulated pods: a client's wget or curl.exe reaches
// the Service's backend exactly when the network model (what `winkube net
// check` prints) says it does, and fails when the model says it fails.
func TestTrafficFollowsTheModel(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	webPod(t, ns, "win2019-1")
	lin := simplePod("lin", "linux-1", busybox)
	lin.Spec.Containers[0].Command = []string{"sleep", "3600"}
	createPod(t, ns, lin)
	win := simplePod("win", "win2022-1", "mcr.microsoft.com/windows/servercore:ltsc2022")
	createPod(t, ns, win)
	for _, name := range []string{"lin", "win"} {
		waitPod(t, ns, name, 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	}
	waitFor(t, 30*time.Second, "the Service's endpoint", func(context.Context) (bool, error) {
		res, err := agent.router.Model().Check(reach.Request{Source: "pod/" + ns + "/lin", Target: "svc/" + ns + "/web", Port: 80})
		return err == nil && res.Reachable, nil
	})
	cases := []struct {
		pod, node, target string
		cmd               []string
	}{
		{"lin", "linux-1", "web", []string{"wget", "-qO-", "-T", "2", "http://web/hostname"}},
		{"lin", "linux-1", "web." + ns, []string{"wget", "-qO-", "-T", "2", "http://web." + ns + "/hostname"}},
		// rule: DNS-1
		{"win", "win2022-1", "web", []string{"curl.exe", "-s", "http://web/hostname"}},
		{"win", "win2022-1", "web." + ns, []string{"curl.exe", "-s", "http://web." + ns + "/hostname"}},
		{"win", "win2022-1", "web." + ns + ".svc.cluster.local", []string{"curl.exe", "-s", "http://web." + ns + ".svc.cluster.local/hostname"}},
	}
	// In-cluster clients reach kube-apiserver through the kubernetes
	// Service's endpoint.
	if out, err := execIn(t, ns, "lin", "linux-1", []string{"nc", "-z", "-w", "2", "kubernetes.default.svc.cluster.local", "443"}, ""); err != nil {
		t.Errorf("nc -z kubernetes.default 443: %q %v", out, err)
	}
	for _, c := range cases {
		res, err := agent.router.Model().Check(reach.Request{Source: "pod/" + ns + "/" + c.pod, Target: c.target, Port: 80})
		if err != nil {
			t.Fatal(err)
		}
		out, err := execIn(t, ns, c.pod, c.node, c.cmd, "")
		got := err == nil && out == "web"
		t.Logf("%s %v: %q %v (model: reachable=%t %s)", c.pod, c.cmd, out, err, res.Reachable, res.Reason)
		if got != res.Reachable {
			t.Errorf("%s: %v → %q %v; the model says reachable=%t (%s)", c.pod, c.cmd, out, err, res.Reachable, res.Reason)
		}
	}
}

// A readiness probe on a port nothing listens on fails in the kubelet's
// words; one on the server's port passes.
func TestProbesOverThePodNetwork(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := simplePod("closed", "linux-1", busybox)
	pod.Spec.Containers[0].Command = []string{"sleep", "3600"}
	pod.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(9999)}}, PeriodSeconds: 1}
	createPod(t, ns, pod)
	p := waitPod(t, ns, "closed", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.PodIP != "" && p.Status.Phase == corev1.PodRunning })
	want := fmt.Sprintf(`Readiness probe failed: Get "http://%s:9999/": dial tcp %s:9999: connect: connection refused`, p.Status.PodIP, p.Status.PodIP)
	ev := waitEvent(t, ns, "closed", "Unhealthy", "Readiness probe failed", 20*time.Second)
	if ev.Message != want {
		t.Errorf("event %q, want %q", ev.Message, want)
	}
	if p, _ := client.CoreV1().Pods(ns).Get(context.Background(), "closed", metav1.GetOptions{}); podReady(p) {
		t.Error("pod Ready with a failing readiness probe")
	}
	webPod(t, ns, "linux-1") // Ready only once its TCP probe connects
}

// kubectl port-forward's protocol (SPDY) to the kubelet API reaches the
// server in the pod; a port nothing listens on is refused with the
// runtime's words.
func TestPortForward(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	webPod(t, ns, "linux-1")
	u := &url.URL{Scheme: "https", Host: "linux-1:10250", Path: "/portForward/" + ns + "/web"}
	for _, tc := range []struct {
		port    string
		want    string
		refused bool
	}{{"8080", "web", false}, {"9999", "connect to localhost:9999", true}} {
		rt, err := spdystream.NewRoundTripperWithConfig(spdystream.RoundTripperConfig{UpgradeTransport: kubeletClient(t).Transport})
		if err != nil {
			t.Fatal(err)
		}
		dialer := spdy.NewDialer(rt, &http.Client{Transport: rt}, http.MethodPost, u)
		stop, ready := make(chan struct{}), make(chan struct{})
		errw := &syncWriter{b: &strings.Builder{}}
		fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{"0:" + tc.port}, stop, ready, io.Discard, errw)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- fw.ForwardPorts() }()
		<-ready
		ports, _ := fw.GetPorts()
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/hostname", ports[0].Local))
		body := ""
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
		}
		close(stop)
		<-done
		if tc.refused {
			// The kubelet's refusal goes to the client's error log (and
			// kubectl's stderr); the forwarded connection is reset.
			if err == nil || body != "" {
				t.Errorf("port %s: body %q err %v; want the connection reset", tc.port, body, err)
			}
		} else if body != tc.want {
			t.Errorf("port %s: body %q err %v %s", tc.port, body, err, errw.String())
		}
	}
}

// syncWriter lets the port forwarder's goroutines write one buffer.
type syncWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// BenchmarkPodToServiceToPod measures HTTP requests from one emulated pod
// to another through a Service VIP, a new connection each (so each one is
// routed by the network model), and reports requests/s and the 50th and
// 99th percentile, and the CPU per request. Run it with -run '^$' -bench
// PodToServiceToPod -cpu 1.
func BenchmarkPodToServiceToPod(b *testing.B) {
	if client == nil {
		b.Skip("needs the control plane")
	}
	ns := newNamespace(b)
	pod := simplePod("web", "linux-1", agnhostImage)
	pod.Labels = map[string]string{"app": "web"}
	pod.Spec.Containers[0].Args = []string{"netexec", "--http-port=8080"}
	createPod(b, ns, pod)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{
		Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	created, err := client.CoreV1().Services(ns).Create(context.Background(), svc, metav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	cli := simplePod("cli", "linux-1", busybox)
	cli.Spec.Containers[0].Command = []string{"sleep", "3600"}
	createPod(b, ns, cli)
	waitPod(b, ns, "cli", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	waitFor(b, 30*time.Second, "the Service's endpoint", func(context.Context) (bool, error) {
		res, err := agent.router.Model().Check(reach.Request{Source: "pod/" + ns + "/cli", Target: "svc/" + ns + "/web", Port: 80})
		return err == nil && res.Reachable, nil
	})
	var from vnet.Host
	for _, n := range agent.nodes {
		if w := n.workerByName(ns, "cli"); w != nil {
			from = *w.NetHost()
		}
	}
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return agent.fabric.Dial(ctx, from, network, addr)
	}}}
	measureRequests(b, hc, "http://"+created.Spec.ClusterIP+"/hostname")
}

// measureRequests sends GETs of url one after another and reports
// requests/s, the CPU per request and the 50th and 99th percentiles.
func measureRequests(b *testing.B, hc *http.Client, url string) {
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU(b)
	for b.Loop() {
		t0 := time.Now()
		resp, err := hc.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		took = append(took, time.Since(t0))
	}
	elapsed, cpu := time.Since(start), processCPU(b)-cpu0
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(len(took))/elapsed.Seconds(), "req/s")
	// The CPU this process spent per request (client, network, server and
	// the agent's background work) moves far less with the machine's load
	// than the wall-clock figures.
	b.ReportMetric(float64(cpu.Microseconds())/float64(len(took)), "cpu-µs/op")
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkHTTPOverPipe is the floor of BenchmarkPodToServiceToPod: the
// same client, a new connection a request, to a plain net/http server
// answering its hostname over an in-memory pipe, with no network model,
// no Service, no container and no cluster. What pod → Service → pod costs
// above it is winkube's. Run it with -run '^$' -bench HTTPOverPipe -cpu 1.
func BenchmarkHTTPOverPipe(b *testing.B) {
	conns := make(chan net.Conn)
	ln := &pipeListener{conns: conns, done: make(chan struct{})}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "web")
	})}
	go srv.Serve(ln)
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		client, server := net.Pipe()
		select {
		case conns <- server:
			return client, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}}
	measureRequests(b, hc, "http://web/hostname")
}

// pipeListener hands the server the far ends of the client's pipes.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// An httpGet postStart hook reaches the pod's server, before the API has
// heard that the pod runs.
func TestHTTPHooks(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := simplePod("hooked", "linux-1", agnhostImage)
	pod.Spec.Containers = []corev1.Container{
		{Name: "web", Image: agnhostImage, Args: []string{"netexec", "--http-port=8080"}},
		{Name: "main", Image: busybox, Command: []string{"sleep", "3600"}, Lifecycle: &corev1.Lifecycle{
			PostStart: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/echo?msg=poststart", Port: intstr.FromInt32(8080)}},
			PreStop:   &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/echo?msg=prestop", Port: intstr.FromInt32(8080)}},
		}},
	}
	createPod(t, ns, pod)
	waitPod(t, ns, "hooked", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	waitFor(t, 20*time.Second, "the postStart request in the server's log", func(context.Context) (bool, error) {
		return strings.Contains(logsOf(t, ns, "hooked", "linux-1", "web"), "GET /echo?msg=poststart"), nil
	})
	for _, e := range podEvents(t, ns, "hooked") {
		if e.Reason == "FailedPostStartHook" {
			t.Errorf("event %s: %s", e.Reason, e.Message)
		}
	}
}

// agnhost nettest counts what busybox wget POSTs to it (the PreStop
// conformance test's exchange).
func TestNettestCountsPosts(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	srv := simplePod("server", "win2019-1", agnhostImage)
	srv.Spec.Containers[0].Args = []string{"nettest"}
	createPod(t, ns, srv)
	cli := simplePod("cli", "linux-1", busybox)
	cli.Spec.Containers[0].Command = []string{"sleep", "3600"}
	createPod(t, ns, cli)
	p := waitPod(t, ns, "server", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning && p.Status.PodIP != "" })
	waitPod(t, ns, "cli", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	url := "http://" + p.Status.PodIP + ":8080/"
	if out, err := execIn(t, ns, "cli", "linux-1", []string{"wget", "-O-", `--post-data={"Source": "prestop"}`, url + "write"}, ""); err != nil {
		t.Fatalf("wget --post-data: %q %v", out, err)
	}
	out, err := execIn(t, ns, "cli", "linux-1", []string{"wget", "-qO-", url + "read"}, "")
	if err != nil || !strings.Contains(out, `"prestop": 1`) {
		t.Errorf("read: %q %v", out, err)
	}
}

// agnhost grpc-health-checking serves grpc.health.v1 on 5000: a gRPC
// readiness probe passes, and /make-not-serving on 8080 turns it to
// NOT_SERVING, which the kubelet reports in its words.
func TestGRPCProbe(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := simplePod("grpc", "win2019-1", agnhostImage)
	pod.Spec.Containers[0].Args = []string{"grpc-health-checking"}
	pod.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 5000}}, PeriodSeconds: 1}
	createPod(t, ns, pod)
	waitPod(t, ns, "grpc", 30*time.Second, "Ready", podReady)
	out, err := execIn(t, ns, "grpc", "win2019-1", []string{"curl.exe", "-s", "http://localhost:8080/make-not-serving"}, "")
	if err != nil {
		t.Fatalf("make-not-serving: %v %q", err, out)
	}
	ev := waitEvent(t, ns, "grpc", "Unhealthy", "Readiness probe failed", 20*time.Second)
	if !strings.Contains(ev.Message, "service unhealthy (responded with \"NOT_SERVING\")") {
		t.Errorf("event %q", ev.Message)
	}
}

// agnhost's Linux image has curl (Alpine's, which its Dockerfile adds);
// a busybox image has none, as the poststart-hook e2e test relies on.
func TestLinuxAgnhostHasCurl(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	webPod(t, ns, "linux-1")
	for _, img := range []string{agnhostImage, busybox} {
		name := "client-" + strings.Split(strings.TrimPrefix(img, "registry.k8s.io/e2e-test-images/"), ":")[0]
		pod := simplePod(name, "linux-1", img)
		pod.Spec.Containers[0].Command = []string{"sleep", "3600"}
		createPod(t, ns, pod)
		waitPod(t, ns, name, 30*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	}
	// The Service has a ready endpoint once web is Ready, but the agent
	// learns of it from its EndpointSlice informer a moment later; until
	// then the model refuses, as kube-proxy would (exit 7).
	var out string
	var err error
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		out, err = execIn(t, ns, "client-agnhost", "linux-1", []string{"sh", "-c", "curl -s http://web/echo?msg=hi"}, "")
		if (err == nil && out == "hi") || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || out != "hi" {
		t.Errorf("curl in agnhost: %q (%v)", out, err)
	}
	if out, err := execIn(t, ns, "client-busybox", "linux-1", []string{"sh", "-c", "curl -s http://web/"}, ""); err == nil || out != "sh: curl: not found\n" {
		t.Errorf("curl in busybox: %q (%v), want sh: curl: not found", out, err)
	}
}

// A pod reaches the API server at the address the "kubernetes" Service's
// endpoints name, not only through the Service: on a real cluster that
// is the control-plane node's address (the OIDC discovery document's
// jwks_uri names it).
func TestPodReachesAPIServerEndpoint(t *testing.T) {
	needCluster(t)
	ctx := context.Background()
	slices, err := client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=kubernetes"})
	if err != nil || len(slices.Items) == 0 || len(slices.Items[0].Endpoints) == 0 || len(slices.Items[0].Ports) == 0 {
		t.Fatalf("kubernetes EndpointSlice: %v %v", slices, err)
	}
	es := slices.Items[0]
	addr := net.JoinHostPort(es.Endpoints[0].Addresses[0], strconv.Itoa(int(*es.Ports[0].Port)))
	ns := newNamespace(t)
	pod := simplePod("dial", "linux-1", "registry.k8s.io/e2e-test-images/agnhost:2.59")
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	pod.Spec.Containers[0].Args = []string{"connect", addr, "--timeout=5s"}
	createPod(t, ns, pod)
	if p := waitPod(t, ns, "dial", 60*time.Second, "done", podDone); p.Status.Phase != corev1.PodSucceeded {
		t.Errorf("agnhost connect %s: %v\n%s", addr, statusOf(p), logsOf(t, ns, "dial", "linux-1", "main"))
	}
}
