package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/winkube/winkube/internal/syncbuf"
)

// A control plane alone: every pool has count 0.
const noNodesConfig = `apiVersion: winkube.io/v1alpha1
kind: Cluster
nodePools:
- name: linux
  os: linux
  count: 0
`

// What `winkube nodes` joins to it from outside.
const joinConfig = `apiVersion: winkube.io/v1alpha1
kind: Cluster
nodePools:
- name: linux
  os: linux
  count: 1
- name: win2022
  os: windows
  release: "2022"
  count: 1
`

// TestNodesJoinAnyCluster joins emulated nodes to a cluster winkube does
// not own: a `winkube up` with no nodes stands in for it (a separate
// process with its own CA), and `winkube nodes` from a second process
// serves the kubelet API on 127.0.0.1, which that apiserver's egress proxy
// dials directly. logs, exec and port-forward go through that apiserver.
func TestNodesJoinAnyCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	dir := t.TempDir()
	cfgDir := t.TempDir()
	up := startUp(t, "--data-dir", dir, "--port", "0", "--config", writeFile(t, cfgDir, "none.yaml", noNodesConfig))
	if !strings.Contains(up.output(), "No emulated nodes") {
		t.Fatalf("up with count 0 pools:\n%s", up.output())
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	pools := writeFile(t, cfgDir, "join.yaml", joinConfig)
	cs := clientFor(t, dir)
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	checkBadKubeletAddress(t, cs, kubeconfig, pools)

	join := startNodes(t, "--kubeconfig", kubeconfig, "--config", pools,
		"--kubelet-address", "127.0.0.1", "--kubelet-port", "0", "--approve-csr")
	ctx := context.Background()
	node, err := cs.CoreV1().Nodes().Get(ctx, "win2022-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	port := node.Status.DaemonEndpoints.KubeletEndpoint.Port
	if node.Status.Addresses[0] != (corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}) || port == 0 || port == 10250 {
		t.Errorf("node addresses %v kubelet port %d: want InternalIP 127.0.0.1 and the picked port", node.Status.Addresses, port)
	}

	createLoggingPod(t, cs)
	checkJoinedLogs(t, cs)
	if out, err := execIn(cfg, "hello", "main", "cmd", "/c", "echo hi"); err != nil || !strings.Contains(out, "hi") {
		t.Errorf("exec through the apiserver: %q, %v", out, err)
	}
	checkJoinedPortForward(t, cs, cfg)
	checkIssuedCert(t, join, dir, net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port))))

	_ = join.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-join.done:
	case <-time.After(15 * time.Second):
		t.Fatalf("winkube nodes did not stop on Ctrl-C:\n%s", join.output())
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// nodesProcess is a running `winkube nodes`.
type nodesProcess struct {
	cmd  *exec.Cmd
	out  *syncbuf.Buffer
	done chan struct{}
}

func (p *nodesProcess) output() string { return p.out.String() }

func (p *nodesProcess) kill() {
	select {
	case <-p.done:
	default:
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// startNodes runs `winkube nodes` until its nodes are Ready; the test's
// cleanup kills it.
func startNodes(t *testing.T, args ...string) *nodesProcess {
	t.Helper()
	p := &nodesProcess{cmd: exec.Command(winkube, append([]string{"nodes"}, args...)...), out: &syncbuf.Buffer{}, done: make(chan struct{})}
	p.cmd.Dir = repoRoot
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(p.kill)
	deadline := time.After(3 * time.Minute)
	for !strings.Contains(p.output(), "nodes Ready") {
		select {
		case <-p.done:
			t.Fatalf("winkube nodes exited:\n%s", p.output())
		case <-deadline:
			t.Fatalf("winkube nodes not Ready after 3m:\n%s", p.output())
		case <-time.After(200 * time.Millisecond):
		}
	}
	return p
}

// checkBadKubeletAddress: an address of no interface is refused before
// any node registers; one the apiserver cannot reach (winkube's egress
// proxy dials loopback only) fails once its nodes registered and removes
// them. Each names --kubelet-address.
func checkBadKubeletAddress(t *testing.T, cs kubernetes.Interface, kubeconfig, pools string) {
	t.Helper()
	cases := map[string]string{"192.0.2.1": "--kubelet-address 192.0.2.1"}
	if ip := outsideAddress(); ip != "" {
		cases[ip] = "the API server cannot reach node linux-1's kubelet"
	}
	for addr, want := range cases {
		cmd := exec.Command(winkube, "nodes", "--kubeconfig", kubeconfig, "--config", pools, "--kubelet-address", addr, "--kubelet-port", "0")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), want) || !strings.Contains(string(out), "--kubelet-address") {
			t.Errorf("--kubelet-address %s: err %v, want an error with %q:\n%s", addr, err, want, out)
		}
		nodes, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
		if err != nil || len(nodes.Items) != 0 {
			t.Errorf("--kubelet-address %s left nodes behind: %v", addr, err)
			for _, n := range nodes.Items {
				_ = cs.CoreV1().Nodes().Delete(context.Background(), n.Name, metav1.DeleteOptions{})
			}
		}
	}
}

// outsideAddress is a non-loopback address of this machine, if any.
func outsideAddress() string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() && !ipn.IP.IsLinkLocalUnicast() {
			return ipn.IP.String()
		}
	}
	return ""
}

// createLoggingPod runs a Windows container that prints and keeps running.
func createLoggingPod(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "hello"},
		Spec: corev1.PodSpec{
			NodeName:    "win2022-1",
			Tolerations: []corev1.Toleration{{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}},
			Containers: []corev1.Container{{Name: "main", Image: "mcr.microsoft.com/windows/nanoserver:ltsc2022",
				Command: []string{"cmd", "/c", "echo hello & ping -t localhost >nul"}}},
		},
	}
	if _, err := cs.CoreV1().Pods("default").Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, cs, "hello")
}

func waitRunning(t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		p, err := cs.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
		if err == nil && p.Status.Phase == corev1.PodRunning {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod %s not Running: %v %+v", name, err, p.Status)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// checkJoinedLogs reads the pod's log as `kubectl logs` does.
func checkJoinedLogs(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	logs, err := cs.CoreV1().Pods("default").GetLogs("hello", &corev1.PodLogOptions{}).DoRaw(context.Background())
	if err != nil || !strings.Contains(string(logs), "hello") {
		t.Errorf("logs through the apiserver: %q, %v", logs, err)
	}
}

// checkJoinedPortForward forwards a port of a web server on the Linux
// node, as `kubectl port-forward` does. (The node proxy, which
// /api/v1/nodes/NAME/proxy/stats/summary takes, refuses loopback kubelet
// addresses; logs, exec and port-forward do not.)
func checkJoinedPortForward(t *testing.T, cs kubernetes.Interface, cfg *rest.Config) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.PodSpec{NodeName: "linux-1", Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27",
			Ports: []corev1.ContainerPort{{ContainerPort: 80}}}}},
	}
	if _, err := cs.CoreV1().Pods("default").Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, cs, "web")
	if got := portForwardGet(t, cfg, "web", 80); !strings.Contains(got, "Welcome to nginx") {
		t.Errorf("port-forward to web:80: %q", got)
	}
}

// checkIssuedCert: with --approve-csr the node serves the certificate the
// cluster's CA issued through the certificates API, which a client holding
// that CA (an apiserver with --kubelet-certificate-authority) verifies.
func checkIssuedCert(t *testing.T, join *nodesProcess, dir, addr string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(join.output(), "node win2022-1 serves the certificate issued") {
		if time.Now().After(deadline) {
			t.Fatalf("no issued certificate within 1m:\n%s", join.output())
		}
		time.Sleep(200 * time.Millisecond)
	}
	caPEM, err := os.ReadFile(filepath.Join(dir, "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatalf("TLS to %s with the cluster CA: %v", addr, err)
	}
	defer conn.Close()
	if cn := conn.ConnectionState().PeerCertificates[0].Subject.CommonName; cn != "system:node:win2022-1" {
		t.Errorf("served certificate %q", cn)
	}
}
