package controlplane_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
	"github.com/winkube/winkube/pkg/controlplane/internal/upstreamversion"
)

// shared is the one control plane the read-mostly tests use; starting one
// costs seconds of CPU on a shared machine.
var (
	shared      *controlplane.ControlPlane
	startReport []string // start-up figures, logged by TestStartupReport
	startSteps  []string // the steps Options.Progress reported, in order
)

func TestMain(m *testing.M) {
	controlplane.MaybeRunComponent() // the children are this test binary
	if os.Getenv(helperEnv) != "" {
		startAndBlock(os.Getenv(helperEnv))
	}
	began := time.Now()
	var mu sync.Mutex
	cfg, err := v1alpha1.Decode([]byte(tunedConfig))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tuned cluster config:", err)
		os.Exit(1)
	}
	cp, cleanup, err := cptest.StartOptions(controlplane.Options{
		// The shared control plane is sized for 1,000 nodes and carries the
		// config's overrides, so one start proves upstream takes them.
		Nodes: 1000,
		Flags: cfg.ControlPlaneFlags(),
		Progress: func(step string, took time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			startReport = append(startReport, fmt.Sprintf("step %-24s %6.2fs", step, took.Seconds()))
			startSteps = append(startSteps, step)
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start shared control plane:", err)
		os.Exit(1)
	}
	startReport = append(startReport, fmt.Sprintf("cold start to Ready: %.2fs", time.Since(began).Seconds()))
	shared = cp
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// tunedConfig overrides one sized flag and one upstream default.
const tunedConfig = `apiVersion: winkube.io/v1alpha1
kind: Cluster
controlPlane:
  kube-controller-manager: {kube-api-qps: 150, concurrent-gc-syncs: "30"}
  kube-apiserver: {max-requests-inflight: "800"}
`

// TestTunedFlagsReachTheComponents reads the running components' command
// lines: the overrides win over the sized values, which are there for the
// rest; the components running at all shows upstream accepted every flag.
func TestTunedFlagsReachTheComponents(t *testing.T) {
	want := map[string][]string{
		"kube-controller-manager": {"--kube-api-qps=150", "--concurrent-gc-syncs=30", "--kube-api-burst=300", "--concurrent-replicaset-syncs=50"},
		"kube-scheduler":          {"--kube-api-qps=500", "--kube-api-burst=1000"},
		"kube-apiserver":          {"--max-requests-inflight=800", "--max-mutating-requests-inflight=1000"},
	}
	pids := shared.PIDs()
	for name, flags := range want {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pids[name]))
		if err != nil {
			t.Fatalf("read command line of %s: %v", name, err)
		}
		args := strings.Split(string(data), "\x00")
		for _, flag := range flags {
			if !slices.Contains(args, flag) {
				t.Errorf("%s runs without %s: %v", name, flag, args)
			}
		}
	}
}

func clientset(t *testing.T, cp *controlplane.ControlPlane) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestStartupReport checks what a start reports: each step once through
// Options.Progress, and a live process for each upstream component. The
// figures are logged for -v runs; no timing is asserted.
func TestStartupReport(t *testing.T) {
	seen := map[string]bool{}
	for _, step := range startSteps {
		if seen[step] {
			t.Errorf("step %q reported twice", step)
		}
		seen[step] = true
	}
	if len(startSteps) == 0 {
		t.Error("Options.Progress was never called")
	}
	pids := shared.PIDs()
	for _, name := range []string{"kube-apiserver", "kube-scheduler", "kube-controller-manager"} {
		if !seen[name] {
			t.Errorf("no progress step for %s; got %v", name, startSteps)
		}
		if pids[name] <= 0 {
			t.Errorf("PIDs()[%q] = %d, want a running process", name, pids[name])
		}
	}
	for _, line := range startReport {
		t.Log(line)
	}
	for name, pid := range pids {
		t.Logf("RSS %-24s %s", name, vmRSS(t, pid))
	}
	t.Logf("RSS %-24s %s (test process: etcd and the client side)", "parent", vmRSS(t, os.Getpid()))
}

func vmRSS(t *testing.T, pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read status of pid %d: %v", pid, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return "unknown"
}

func TestReadyz(t *testing.T) {
	body, err := clientset(t, shared).Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctxFor(t, 30*time.Second))
	if err != nil || string(body) != "ok" {
		t.Fatalf("/readyz = %q, %v; want ok", body, err)
	}
}

func TestVersionIsUpstreamRelease(t *testing.T) {
	v, err := clientset(t, shared).Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if v.GitVersion != upstreamversion.UpstreamVersion || v.Major != "1" || v.Minor != "36" || v.GitTreeState != "clean" {
		t.Errorf("/version = %+v, want gitVersion %s, major 1, minor 36, clean tree", v, upstreamversion.UpstreamVersion)
	}
	// The constant must follow go.mod, or /version lies about what runs.
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build info")
	}
	for _, dep := range info.Deps {
		if dep.Path == "k8s.io/kubernetes" && dep.Version != upstreamversion.UpstreamVersion {
			t.Errorf("go.mod has k8s.io/kubernetes %s but UpstreamVersion is %s", dep.Version, upstreamversion.UpstreamVersion)
		}
	}
}

func TestKubeconfigWorks(t *testing.T) {
	cfg, err := clientcmd.LoadFromFile(shared.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CurrentContext != "winkube" || cfg.Clusters["winkube"] == nil || cfg.Clusters["winkube"].Server != shared.URL() {
		t.Fatalf("kubeconfig: current context %q, clusters %v; want context and cluster winkube at %s",
			cfg.CurrentContext, cfg.Clusters, shared.URL())
	}
	rc, err := clientcmd.BuildConfigFromFlags("", shared.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(rc)
	if _, err := cs.CoreV1().Namespaces().Get(ctxFor(t, 30*time.Second), "kube-system", metav1.GetOptions{}); err != nil {
		t.Errorf("admin kubeconfig cannot read namespace kube-system: %v", err)
	}
}

func TestComponentLogsAreInDataDir(t *testing.T) {
	dir := filepath.Dir(shared.KubeconfigPath())
	for _, name := range []string{"etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager"} {
		st, err := os.Stat(filepath.Join(dir, "logs", name+".log"))
		if err != nil || st.Size() == 0 {
			t.Errorf("log of %s: %v (size %d), want a non-empty file", name, err, sizeOf(st))
		}
	}
}

func sizeOf(st os.FileInfo) int64 {
	if st == nil {
		return 0
	}
	return st.Size()
}

func TestPodRoundTrip(t *testing.T) {
	ctx := ctxFor(t, time.Minute)
	cs := clientset(t, shared)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "roundtrip"}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"kubernetes.io/os": "windows"},
			Containers:   []corev1.Container{{Name: "iis", Image: "mcr.microsoft.com/windows/servercore/iis"}},
		},
	}
	// A new namespace gets its default service account a moment after it is
	// created; until then the ServiceAccount admission plugin refuses pods.
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Pods(ns.Name).Create(ctx, pod, metav1.CreateOptions{})
		return err == nil, ignoreMissingServiceAccount(err)
	})
	if err != nil {
		t.Fatalf("create pod: %v", err)
	}
	got, err := cs.CoreV1().Pods(ns.Name).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Containers[0].Image != pod.Spec.Containers[0].Image || got.Spec.ServiceAccountName != "default" {
		t.Errorf("read back pod with image %q, service account %q", got.Spec.Containers[0].Image, got.Spec.ServiceAccountName)
	}
}

func ignoreMissingServiceAccount(err error) error {
	if err == nil || (apierrors.IsForbidden(err) && strings.Contains(err.Error(), "serviceaccount")) ||
		apierrors.IsServerTimeout(err) {
		return nil
	}
	return err
}

func TestDefaultNamespaceAcceptsPodsWhenReady(t *testing.T) {
	ctx := ctxFor(t, 30*time.Second)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "first"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
	}
	if _, err := clientset(t, shared).CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod in default right after Ready: %v", err)
	}
}

func TestNodeGetsPodCIDR(t *testing.T) {
	ctx := ctxFor(t, 2*time.Minute)
	cs := clientset(t, shared)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "cidr-test",
		Labels: map[string]string{"kubernetes.io/os": "windows"}}}
	if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Nodes().Delete(context.Background(), node.Name, metav1.DeleteOptions{}) })
	var podCIDR string
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		n, err := cs.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		podCIDR = n.Spec.PodCIDR
		return podCIDR != "", nil
	})
	if err != nil {
		t.Fatalf("node %s got no spec.podCIDR: %v", node.Name, err)
	}
	p, err := netip.ParsePrefix(podCIDR)
	cluster := netip.MustParsePrefix("10.244.0.0/16")
	if err != nil || p.Bits() != 24 || !cluster.Contains(p.Addr()) {
		t.Errorf("node podCIDR %q, want a /24 inside %s", podCIDR, cluster)
	}
}

func TestSecondStartOnSameDataDirIsRefused(t *testing.T) {
	dir := filepath.Dir(shared.KubeconfigPath())
	cp, err := controlplane.Start(ctxFor(t, time.Minute), controlplane.Options{DataDir: dir})
	if err == nil {
		cp.Close()
		t.Fatal("second Start on the same data dir succeeded")
	}
	t.Log(err)
	pid := "pid " + strconv.Itoa(os.Getpid())
	if !errors.Is(err, controlplane.ErrDataDirInUse) || !strings.Contains(err.Error(), pid) {
		t.Errorf("error %q: want ErrDataDirInUse naming %s", err, pid)
	}
	// The refused start must not have disturbed the running one.
	TestReadyz(t)
}

func TestAPIServerPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	cp, err := controlplane.Start(ctxFor(t, time.Minute), controlplane.Options{DataDir: t.TempDir(), APIServerPort: port})
	if err == nil {
		cp.Close()
		t.Fatal("Start succeeded on a taken port")
	}
	t.Log(err)
	var inUse *controlplane.PortInUseError
	if !errors.As(err, &inUse) || inUse.Port != port ||
		!strings.Contains(err.Error(), strconv.Itoa(port)) || !strings.Contains(err.Error(), "APIServerPort") {
		t.Errorf("error %q: want a PortInUseError naming port %d and APIServerPort", err, port)
	}
}

func TestUnwritableDataDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{"under a file": filepath.Join(file, "data")}
	if os.Geteuid() != 0 { // root writes through permission bits
		ro := filepath.Join(t.TempDir(), "ro")
		if err := os.Mkdir(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		dirs["read-only parent"] = filepath.Join(ro, "data")
	}
	for name, dir := range dirs {
		t.Run(name, func(t *testing.T) {
			cp, err := controlplane.Start(ctxFor(t, time.Minute), controlplane.Options{DataDir: dir})
			if err == nil {
				cp.Close()
				t.Fatal("Start succeeded")
			}
			t.Log(err)
			if want := "data dir " + dir + " is not writable"; !strings.Contains(err.Error(), want) {
				t.Errorf("error %q, want it to contain %q", err, want)
			}
		})
	}
}

// TestRestartKeepsStateAndCloseStopsEverything starts a second control
// plane of its own, because it stops it.
func TestRestartKeepsStateAndCloseStopsEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two more control planes")
	}
	dir := t.TempDir()
	cp, cleanup, err := cptest.Start(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxFor(t, 2*time.Minute)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "survivor"}, Data: map[string]string{"k": "v"}}
	if _, err := clientset(t, cp).CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		cleanup()
		t.Fatal(err)
	}
	pids := cp.PIDs()
	began := time.Now()
	cleanup()
	took := time.Since(began)
	t.Logf("Close took %s", took)
	if took > 10*time.Second {
		t.Errorf("Close took %s, want at most 10s", took)
	}
	assertGone(t, pids)

	notices := make(chan string, 10)
	cp, cleanup, err = cptest.StartOptions(controlplane.Options{DataDir: dir, Notice: func(l string) { notices <- l }})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	got, err := clientset(t, cp).CoreV1().ConfigMaps("default").Get(ctx, "survivor", metav1.GetOptions{})
	if err != nil || got.Data["k"] != "v" {
		t.Fatalf("after restart, configmap survivor = %v, %v; want data k=v", got, err)
	}
	checkSupervised(ctx, t, cp, notices)
}

// checkSupervised kills kube-scheduler, found by the control plane's own
// bookkeeping, and expects it back as a new healthy process, with one
// notice that it died and one that it is back, and no fatal error.
func checkSupervised(ctx context.Context, t *testing.T, cp *controlplane.ControlPlane, notices <-chan string) {
	t.Helper()
	old := cp.PIDs()["kube-scheduler"]
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var said []string
	for len(said) < 2 {
		select {
		case l := <-notices:
			said = append(said, l)
		case err := <-cp.Err():
			t.Fatalf("killed kube-scheduler: the control plane failed: %v", err)
		case <-ctx.Done():
			t.Fatalf("killed kube-scheduler: not back; notices %q", said)
		}
	}
	t.Logf("notices: %q", said)
	if !strings.HasPrefix(said[0], "kube-scheduler exited (signal: killed); restarting it (log: ") || !strings.HasPrefix(said[1], "kube-scheduler is running again after ") {
		t.Errorf("notices %q", said)
	}
	pid := cp.PIDs()["kube-scheduler"]
	if pid == old || syscall.Kill(pid, 0) != nil {
		t.Errorf("kube-scheduler PID %d after restart (was %d), want a new live process", pid, old)
	}
	select {
	case l := <-notices:
		t.Errorf("more notices than one each: %q", l)
	case err := <-cp.Err():
		t.Errorf("fatal error after the restart: %v", err)
	case <-time.After(2 * time.Second):
	}
}

func TestCancelledContextStopsEverything(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cp, err := controlplane.Start(ctx, controlplane.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	pids := cp.PIDs()
	cancel()
	// Close after the cancel waits for the stop the cancel began.
	if err := cp.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	assertGone(t, pids)
}

// helperEnv makes the test binary a control plane host that TestChildrenDie
// can SIGKILL: its value is the data dir.
const helperEnv = "WINKUBE_CONTROLPLANE_TEST_HELPER_DIR"

func startAndBlock(dir string) {
	cp, _, err := cptest.Start(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(cp.PIDs()); err != nil {
		os.Exit(1)
	}
	select {} // until killed
}

func TestChildrenDieWithKilledParent(t *testing.T) {
	var stderr strings.Builder
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+t.TempDir())
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var pids map[string]int
	if err := json.NewDecoder(out).Decode(&pids); err != nil {
		t.Fatalf("helper reported no PIDs: %v; stderr:\n%s", err, stderr.String())
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no chance to clean up
		t.Fatal(err)
	}
	_ = cmd.Wait()
	err = wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 5*time.Second, true,
		func(context.Context) (bool, error) { return len(alive(pids)) == 0, nil })
	if err != nil {
		t.Errorf("children still running 5s after their parent was killed: %v", alive(pids))
	}
}

// assertGone checks that no process is left with any of the PIDs. Close
// reaps its children, so not even a zombie may remain.
func assertGone(t *testing.T, pids map[string]int) {
	t.Helper()
	for name, pid := range pids {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s (pid %d) still exists after Close", name, pid)
		}
	}
}

// alive lists the PIDs still running. Zombies count as dead: once their
// parent is gone they wait for init to reap them, which is out of our hands.
func alive(pids map[string]int) map[string]int {
	running := map[string]int{}
	for name, pid := range pids {
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err == nil && !strings.Contains(string(status), "State:\tZ") {
			running[name] = pid
		}
	}
	return running
}

// The apiserver's serving certificate covers the address the "kubernetes"
// endpoints advertise, as kubeadm's does: a pod that follows them (OIDC
// discovery's jwks_uri) verifies the certificate with its service
// account's CA.
func TestServingCertificateCoversAdvertisedAddress(t *testing.T) {
	ctx := ctxFor(t, 30*time.Second)
	cs := kubernetes.NewForConfigOrDie(shared.RESTConfig())
	var ep *corev1.Endpoints
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		e, err := cs.CoreV1().Endpoints(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{})
		ep = e
		return err == nil && len(e.Subsets) > 0 && len(e.Subsets[0].Addresses) > 0, nil
	})
	if err != nil {
		t.Fatalf("kubernetes endpoints: %v", err)
	}
	ip := ep.Subsets[0].Addresses[0].IP
	pemData, err := os.ReadFile(filepath.Join(filepath.Dir(shared.KubeconfigPath()), "pki", "kube-apiserver-serving.crt"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(pemData)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if err := cert.VerifyHostname(ip); err != nil {
		t.Errorf("the serving certificate does not cover the advertised %s: %v", ip, err)
	}
}

// TestComponentsRunWithSizedGOGC reads the running components'
// environment: the shared control plane is sized for 1,000 nodes, where
// they collect at Go's default growth.
func TestComponentsRunWithSizedGOGC(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set in the environment, which the components inherit")
	}
	for name, pid := range shared.PIDs() {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			t.Fatalf("read environment of %s: %v", name, err)
		}
		if env := strings.Split(string(data), "\x00"); !slices.Contains(env, "GOGC=100") {
			t.Errorf("%s runs without GOGC=100", name)
		}
	}
}
