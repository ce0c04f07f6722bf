package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/clientcmd"
)

// faultCluster is one Linux node: the faults are the control plane's.
const faultCluster = `apiVersion: winkube.io/v1alpha1
kind: Cluster
nodePools:
- {name: linux, os: linux, count: 1}
`

// faultWorkload is a ConfigMap and a Deployment of three replicas.
const faultWorkload = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {color: blue}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers:
      - {name: web, image: "nginx:1.27"}
`

// faultFiles writes the cluster config and the workload into base and
// returns the `up` arguments for the data dir dir.
func faultFiles(t *testing.T, base, dir string) []string {
	t.Helper()
	config, work := filepath.Join(base, "cluster.yaml"), filepath.Join(base, "work.yaml")
	if err := os.WriteFile(config, []byte(faultCluster), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(work, []byte(faultWorkload), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"--data-dir", dir, "--port", "0", "--config", config, "--apply", work}
}

// Each control-plane component is SIGKILLed in turn under a running
// workload and a stream of writes: it comes back as a new process, the
// terminal says so once, nothing is lost and a later change is carried
// out. etcd runs inside winkube, so killing etcd is killing winkube: the
// next `up` on the same data dir finds every acknowledged write.
func TestComponentsKilledUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	ctx := context.Background()
	base := t.TempDir()
	dir := filepath.Join(base, "data")
	up := startUp(t, faultFiles(t, base, dir)...)
	cs := clientFor(t, dir)
	waitReplicas(t, cs, 3)
	before := snapshot(t, dir)
	w := startWriter(t, dir)
	defer w.stop()

	for _, name := range []string{"kube-apiserver", "kube-scheduler", "kube-controller-manager"} {
		killComponent(t, up, name)
	}
	waitReplicas(t, cs, 3)
	if after := snapshot(t, dir); !slices.Equal(before, after) {
		t.Errorf("objects changed across the component restarts:\nbefore %v\nafter  %v", before, after)
	}
	scale(t, cs, 4) // the scheduler and the controller-manager work again
	waitReplicas(t, cs, 4)
	before = snapshot(t, dir)

	// etcd: SIGKILL winkube while the writer writes; the components and
	// the nodes die with it.
	children := descendants(up.cmd.Process.Pid)
	up.stop(t, syscall.SIGKILL)
	waitGone(t, children, 5*time.Second)
	acked := w.stop()
	again := startUp(t, "--data-dir", dir, "--port", "0")
	cs = clientFor(t, dir)
	waitReplicas(t, cs, 4)
	if after := snapshot(t, dir); !slices.Equal(before, after) {
		t.Errorf("objects changed across the SIGKILL of etcd (winkube):\nbefore %v\nafter  %v", before, after)
	}
	cms, err := cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, cm := range cms.Items {
		found[cm.Name] = true
	}
	for _, name := range acked {
		if !found[name] {
			t.Errorf("acknowledged write %s lost", name)
		}
	}
	t.Logf("%d writes acknowledged during the faults, all found after", len(acked))
	scale(t, cs, 2)
	waitReplicas(t, cs, 2)
	again.stop(t, syscall.SIGINT)
}

// A disk that fills while the cluster runs stops winkube cleanly, with a
// message naming the data dir, before etcd's writes fail (etcd would exit
// the whole process mid-write); once space is freed, `up` on the same data
// dir resumes with the objects intact.
func TestFullDiskStopsCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs for the data dir")
	}
	base := t.TempDir()
	small := filepath.Join(base, "small")
	if err := os.Mkdir(small, 0o755); err != nil {
		t.Fatal(err)
	}
	// etcd preallocates two 64 MB log segments; winkube keeps 96 MiB free.
	if err := syscall.Mount("tmpfs", small, "tmpfs", 0, "size=320m"); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(small, syscall.MNT_DETACH) })
	dir := filepath.Join(small, "data")
	up := startUp(t, faultFiles(t, base, dir)...)
	children := descendants(up.cmd.Process.Pid)

	fill := filepath.Join(small, "fill")
	fillUp(t, fill, 16<<20)
	select {
	case <-up.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("winkube still runs 30s after the disk filled:\n%s", up.output())
	}
	out := up.output()
	t.Logf("winkube up:\n%s", out)
	if code := up.cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	for _, want := range []string{"Stopping...", "no space left on device: the data dir " + dir, "run winkube up again"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
		t.Error("winkube crashed")
	}
	waitGone(t, children, 5*time.Second)

	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	again := startUp(t, "--data-dir", dir, "--port", "0")
	cs := clientFor(t, dir)
	cm, err := cs.CoreV1().ConfigMaps("default").Get(context.Background(), "settings", metav1.GetOptions{})
	if err != nil || cm.Data["color"] != "blue" {
		t.Errorf("ConfigMap settings after the restart: %v, %v", cm.Data, err)
	}
	waitReplicas(t, cs, 3)
	again.stop(t, syscall.SIGINT)
}

// fillUp allocates a file at path that leaves only left bytes free on its
// file system, as a runaway log would, in one go.
func fillUp(t *testing.T, path string, left uint64) {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(path), &st); err != nil {
		t.Fatal(err)
	}
	free := st.Bavail * uint64(st.Bsize)
	if free <= left {
		t.Fatalf("only %d bytes free before the fill", free)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Fallocate(int(f.Fd()), 0, 0, int64(free-left)); err != nil {
		t.Fatal(err)
	}
	t.Logf("filled %d MiB, %d MiB left", (free-left)>>20, left>>20)
}

// killComponent SIGKILLs one component child of up, found among up's own
// children, and waits until up says it is back, once, as a new process.
func killComponent(t *testing.T, up *upProcess, name string) {
	t.Helper()
	old := componentPID(up.cmd.Process.Pid, name)
	if old <= 1 {
		t.Fatalf("no %s child of winkube up (PID %d)", name, up.cmd.Process.Pid)
	}
	began := time.Now()
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	back := "! " + name + " is running again after "
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(up.output(), back) {
		if time.Now().After(deadline) {
			t.Fatalf("%s not back within a minute:\n%s", name, up.output())
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%s back in %s", name, time.Since(began).Round(100*time.Millisecond))
	out := up.output()
	died := "! " + name + " exited (signal: killed); restarting it (log: " + filepath.Join(dataDirOf(up), "logs", name+".log") + ")"
	if strings.Count(out, died) != 1 || strings.Count(out, back) != 1 {
		t.Errorf("want %q and %q once each:\n%s", died, back, out)
	}
	if pid := componentPID(up.cmd.Process.Pid, name); pid == old || pid <= 1 {
		t.Errorf("%s PID %d after the restart (was %d), want a new process", name, pid, old)
	}
}

// dataDirOf is the --data-dir argument of up.
func dataDirOf(up *upProcess) string {
	i := slices.Index(up.cmd.Args, "--data-dir")
	return up.cmd.Args[i+1]
}

// componentPID is the PID of parent's child that runs the named component
// (its argv[0] is the component's name), 0 if there is none.
func componentPID(parent int, name string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || parentOf(pid) != parent {
			continue
		}
		if args := strings.Split(cmdline(pid), " "); args[0] == name && processAlive(pid) {
			return pid
		}
	}
	return 0
}

func parentOf(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}

// snapshotKinds are the objects a fault must not lose or add (not the
// ones controllers rewrite as a matter of course: events, leases,
// endpoints).
var snapshotKinds = []schema.GroupVersionResource{
	{Version: "v1", Resource: "namespaces"},
	{Version: "v1", Resource: "nodes"},
	{Version: "v1", Resource: "configmaps"},
	{Version: "v1", Resource: "secrets"},
	{Version: "v1", Resource: "services"},
	{Version: "v1", Resource: "serviceaccounts"},
	{Version: "v1", Resource: "pods"},
	{Group: "apps", Version: "v1", Resource: "deployments"},
	{Group: "apps", Version: "v1", Resource: "replicasets"},
}

// snapshot names those objects, sorted; the writer's ConfigMaps are
// checked apart.
func snapshot(t *testing.T, dir string) []string {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	client, err := metadata.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, gvr := range snapshotKinds {
		list, err := client.Resource(gvr).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatalf("listing %s: %v", gvr.Resource, err)
		}
		for _, o := range list.Items {
			if !strings.HasPrefix(o.Name, writerPrefix) {
				names = append(names, gvr.Resource+"/"+o.Namespace+"/"+o.Name)
			}
		}
	}
	slices.Sort(names)
	return names
}

func scale(t *testing.T, cs kubernetes.Interface, replicas int32) {
	t.Helper()
	ctx := context.Background()
	s, err := cs.AppsV1().Deployments("default").GetScale(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Spec.Replicas = replicas
	if _, err := cs.AppsV1().Deployments("default").UpdateScale(ctx, "web", s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitReplicas waits until Deployment web has n ready pods and no others.
func waitReplicas(t *testing.T, cs kubernetes.Interface, n int) {
	t.Helper()
	var running int
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, nil // the apiserver may be coming back
		}
		running = 0
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				running++
			}
		}
		return running == n && len(pods.Items) == n, nil
	})
	if err != nil {
		t.Fatalf("Deployment web: %d pods running, want %d: %v", running, n, err)
	}
}

// writerPrefix names the writer's ConfigMaps.
const writerPrefix = "fault-"

// writer creates ConfigMaps one after another and remembers those the
// apiserver acknowledged; writes while it is down fail and are not counted.
type writer struct {
	mu    sync.Mutex
	acked []string
	quit  chan struct{}
	done  chan struct{}
}

func startWriter(t *testing.T, dir string) *writer {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 100, 100 // client-go's 5/s is no load
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w := &writer{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for i := 0; ; i++ {
			select {
			case <-w.quit:
				return
			case <-time.After(20 * time.Millisecond):
			}
			name := fmt.Sprintf("%s%d", writerPrefix, i)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
			cancel()
			if err == nil {
				w.mu.Lock()
				w.acked = append(w.acked, name)
				w.mu.Unlock()
			}
		}
	}()
	return w
}

// stop ends the writes and returns the acknowledged ones; safe twice.
func (w *writer) stop() []string {
	select {
	case <-w.quit:
	default:
		close(w.quit)
	}
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.acked)
}
