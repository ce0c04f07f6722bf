package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/winkube/winkube/internal/syncbuf"
)

// upProcess is a running `winkube up` and everything it printed.
type upProcess struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  strings.Builder
	done chan struct{}
}

// startUp runs `winkube up` with args and waits until it says the cluster
// is running.
func startUp(t *testing.T, args ...string) *upProcess {
	t.Helper()
	p := &upProcess{cmd: exec.Command(winkube, append([]string{"up"}, args...)...), done: make(chan struct{})}
	p.cmd.Dir = repoRoot
	stdout, _ := p.cmd.StdoutPipe()
	p.cmd.Stderr = p.cmd.Stdout
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.kill() })
	running := make(chan struct{})
	go func() {
		defer close(p.done)
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			p.mu.Lock()
			p.out.WriteString(s.Text() + "\n")
			p.mu.Unlock()
			if strings.HasPrefix(s.Text(), "The cluster is running") {
				close(running)
			}
		}
		_ = p.cmd.Wait()
	}()
	select {
	case <-running:
	case <-p.done:
		t.Fatalf("winkube up exited early:\n%s", p.output())
	case <-time.After(5 * time.Minute):
		t.Fatalf("winkube up not running after 5m:\n%s", p.output())
	}
	return p
}

func (p *upProcess) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func (p *upProcess) kill() {
	if p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// stopHangGuard bounds the wait for winkube up to exit after a signal. It
// is a hang guard, not a speed check: a graceful stop of a whole cluster
// on a loaded 2-core machine can take tens of seconds.
const stopHangGuard = 2 * time.Minute

// stop sends sig and waits for the process to exit.
func (p *upProcess) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(stopHangGuard):
		t.Fatalf("winkube up did not exit within %s of %v:\n%s", stopHangGuard, sig, p.output())
	}
}

// descendants lists the PIDs whose parent chain leads to pid.
func descendants(pid int) []int {
	parents := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command name (which may hold spaces) start after the last ')'.
		fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		if len(fields) > 1 {
			parents[child], _ = strconv.Atoi(fields[1])
		}
	}
	var out []int
	for child := range parents {
		for p := parents[child]; p > 1; p = parents[p] {
			if p == pid {
				out = append(out, child)
				break
			}
		}
	}
	return out
}

func alive(pids []int) []int {
	var left []int
	for _, pid := range pids {
		data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err == nil && !strings.Contains(string(data), ") Z ") {
			left = append(left, pid)
		}
	}
	return left
}

func waitGone(t *testing.T, pids []int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for len(alive(pids)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes still alive after %s: %v", within, alive(pids))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func clientFor(t *testing.T, dir string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestUp runs the README's main job, then the life cycle around it: a
// second up on the same data dir, Ctrl-C, resume, SIGKILL, and down.
func TestUp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a whole cluster")
	}
	dir := t.TempDir()
	up := startUp(t, "--data-dir", dir, "--port", "0",
		"--apply", "examples/windows-web-server.yaml", "--apply", "examples/iis-2022-on-2019-fails.yaml")
	out := up.output()
	t.Logf("winkube up:\n%s", out)
	for _, want := range []string{"export KUBECONFIG=" + filepath.Join(dir, "kubeconfig"), "4 nodes Ready", "Where the pods landed:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	checkPlacement(t, out)
	cs := clientFor(t, dir)
	checkNodes(t, cs)
	checkDescribe(t, cs, dir)
	checkLogs(t, cs)
	checkNet(t, cs, dir)
	checkTraffic(t, cs, dir)
	checkDoctor(t, cs, dir)

	checkJoin(t, cs, dir)

	// A second up on the same data dir must refuse with one clear line.
	second := exec.Command(winkube, "up", "--data-dir", dir, "--port", "0")
	msg, err := second.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), dir) || strings.Count(strings.TrimSpace(string(msg)), "\n") > 1 {
		t.Errorf("second up on the same data dir: err=%v output:\n%s", err, msg)
	}

	children := descendants(up.cmd.Process.Pid)
	if len(children) < 3 {
		t.Errorf("expected apiserver, scheduler and controller-manager children, got %v", children)
	}
	start := time.Now()
	up.stop(t, syscall.SIGINT)
	t.Logf("Ctrl-C stopped everything in %s", time.Since(start))
	if code := up.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code after Ctrl-C = %d:\n%s", code, up.output())
	}
	waitGone(t, children, 2*time.Second)

	// Resume: same cluster, same objects.
	again := startUp(t, "--data-dir", dir, "--port", "0")
	d, err := clientFor(t, dir).AppsV1().Deployments("default").Get(context.Background(), "win-webserver", metav1.GetOptions{})
	if err != nil {
		t.Errorf("deployment lost across restart: %v", err)
	} else if d.Annotations["kubectl.kubernetes.io/last-applied-configuration"] == "" {
		// Without it, a later `kubectl apply -f examples/` warns on every object.
		t.Errorf("--apply left no last-applied-configuration annotation: %v", d.Annotations)
	}
	children = descendants(again.cmd.Process.Pid)
	again.stop(t, syscall.SIGKILL)
	waitGone(t, children, 5*time.Second) // children die with the parent

	down := exec.Command(winkube, "down", "--data-dir", dir)
	if msg, err := down.CombinedOutput(); err != nil {
		t.Fatalf("winkube down: %v\n%s", err, msg)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("data dir still exists after down: %v", err)
	}
}

// checkPlacement reads the pod table that `up --apply` printed.
func checkPlacement(t *testing.T, out string) {
	t.Helper()
	web, failing := 0, 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		switch {
		case strings.HasPrefix(f[0], "win-webserver-"):
			web++
			// rule: SCH-1, SCH-3 — nodeSelector on the build plus toleration lands on 2019 nodes
			if !strings.HasPrefix(f[1], "win2019-") || f[2] != "windows" || f[3] != "10.0.17763" || f[4] != "Running" {
				t.Errorf("web server pod placed wrong: %q", line)
			}
		case strings.HasPrefix(f[0], "iis-2022-on-2019-"):
			failing++
			// rule: IMG-2, IMG-4 — MCR's 2022 image is an index with no 2019
			// entry, so containerd on a 2019 host fails the pull
			if f[4] != "ErrImagePull" && f[4] != "ImagePullBackOff" {
				t.Errorf("2022 image on 2019 node: %q, want ErrImagePull or ImagePullBackOff", line)
			}
		}
	}
	if web != 2 || failing != 1 {
		t.Errorf("found %d web server pods and %d failing pods in:\n%s", web, failing, out)
	}
}

func checkNodes(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	nodes, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != 4 {
		t.Fatalf("got %d nodes, want 4", len(nodes.Items))
	}
	for _, n := range nodes.Items {
		ready := false
		for _, c := range n.Status.Conditions {
			ready = ready || (c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue)
		}
		if !ready {
			t.Errorf("node %s not Ready", n.Name)
		}
		// rule: SCH-1, KLT-1
		if n.Labels[corev1.LabelOSStable] == "windows" {
			if n.Labels[corev1.LabelWindowsBuild] == "" || !strings.HasPrefix(n.Status.NodeInfo.OSImage, "Windows Server") ||
				!strings.HasPrefix(n.Status.NodeInfo.KernelVersion, n.Labels[corev1.LabelWindowsBuild]+".") {
				t.Errorf("windows node %s: labels %v nodeInfo %+v", n.Name, n.Labels, n.Status.NodeInfo)
			}
			// rule: SCH-3
			if len(n.Spec.Taints) == 0 || n.Spec.Taints[0].Key != "os" {
				t.Errorf("windows node %s taints = %v", n.Name, n.Spec.Taints)
			}
		}
		if n.Status.NodeInfo.KubeletVersion != "v1.36.3" {
			t.Errorf("node %s kubelet version %q", n.Name, n.Status.NodeInfo.KubeletVersion)
		}
	}
}

// checkDescribe runs `winkube describe pod` on a web server pod: 500m of
// CPU on a 4-core node is CpuMaximum 10*500/4 = 1250, 512Mi is 536870912 bytes.
func checkDescribe(t *testing.T, cs kubernetes.Interface, dir string) {
	t.Helper()
	pods, err := cs.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: "app=win-webserver"})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("web server pods: %v", err)
	}
	// Events reach the API after the status that reports what they say
	// (the recorder batches them), as with a real kubelet: a describe
	// right after Running may not show Started yet.
	var out []byte
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		var err error
		out, err = exec.Command(winkube, "describe", "pod", pods.Items[0].Name, "--data-dir", dir).CombinedOutput()
		if err != nil {
			t.Fatalf("winkube describe pod: %v\n%s", err, out)
		}
		if strings.Contains(string(out), "Started") || time.Now().After(deadline) {
			break
		}
	}
	// rule: KLT-5, KLT-6
	for _, want := range []string{"CpuMaximum=1250", "MemoryLimitInBytes=536870912", "Windows Server 2019", "Started"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("describe output lacks %q:\n%s", want, out)
		}
	}
}

// checkLogs reads pod logs through kube-apiserver, which reaches the
// emulated nodes' kubelet endpoint through winkube's egress proxy.
func checkLogs(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	ctx := context.Background()
	pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		logs, err := cs.CoreV1().Pods("default").GetLogs(p.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
		switch {
		case strings.HasPrefix(p.Name, "win-webserver-"):
			// The HttpListener script runs: its log is what it wrote.
			if err != nil || !strings.Contains(string(logs), "Listening at http://*:80/") {
				t.Errorf("logs of %s: %v\n%s", p.Name, err, logs)
			}
		case strings.HasPrefix(p.Name, "iis-2022-on-2019-"):
			// The kubelet's answer for a container that never started
			// (kubectl prints the body; client-go only says BadRequest).
			pulling := strings.Contains(string(logs), "is waiting to start: trying and failing to pull image") ||
				strings.Contains(string(logs), "is waiting to start: image can't be pulled")
			if err == nil || !pulling {
				t.Errorf("logs of %s: err = %v, body %q, want the kubelet's waiting error", p.Name, err, logs)
			}
		}
	}
}

// checkJoin runs `winkube nodes` against the running cluster, as a user
// joins emulated nodes to any existing cluster, and stops it with Ctrl-C.
func checkJoin(t *testing.T, cs kubernetes.Interface, dir string) {
	t.Helper()
	join := exec.Command(winkube, "nodes", "--kubeconfig", filepath.Join(dir, "kubeconfig"), "--config", "test/e2e/testdata/extra-pool.yaml", "--kubelet-port", "0")
	join.Dir = repoRoot
	out := &syncbuf.Buffer{}
	join.Stdout, join.Stderr = out, out
	if err := join.Start(); err != nil {
		t.Fatal(err)
	}
	defer join.Process.Kill()
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(out.String(), "nodes Ready") {
		if time.Now().After(deadline) {
			t.Fatalf("winkube nodes not ready:\n%s", out.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	n, err := cs.CoreV1().Nodes().Get(context.Background(), "win2025-1", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("joined node: %v", err)
	}
	// rule: SCH-1, KLT-1
	if n.Labels[corev1.LabelWindowsBuild] != "10.0.26100" || n.Status.NodeInfo.OSImage != "Windows Server 2025 Datacenter" {
		t.Errorf("joined node labels %v nodeInfo %+v", n.Labels, n.Status.NodeInfo)
	}
	_ = join.Process.Signal(syscall.SIGINT)
	if err := join.Wait(); err != nil {
		t.Errorf("winkube nodes after Ctrl-C: %v\n%s", err, out.String())
	}
}
