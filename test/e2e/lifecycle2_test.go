package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// lifecycleEnv runs winkube with a temporary HOME and KUBECONFIG, so that
// nothing touches the user's ~/.winkube or ~/.kube/config.
type lifecycleEnv struct {
	t          *testing.T
	home, kube string
}

func (e *lifecycleEnv) run(args ...string) (string, int) {
	e.t.Helper()
	c := exec.Command(winkube, args...)
	c.Dir = e.t.TempDir()
	c.Env = append(os.Environ(), "HOME="+e.home, "KUBECONFIG="+e.kube)
	out, err := c.CombinedOutput()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		e.t.Fatalf("winkube %v: %v", args, err)
	}
	return string(out), code
}

// A kind user's day: a named cluster in the background, listed, inspected,
// reached through the merged context, stopped with its state kept, then
// deleted with its context, leaving no process behind.
func TestBackgroundNamedCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	base := t.TempDir()
	env := &lifecycleEnv{t: t, home: filepath.Join(base, "home"), kube: filepath.Join(base, "kube", "config")}
	dir := filepath.Join(base, "data")
	out, code := env.run("up", "--detach", "--name", "t1", "--data-dir", dir, "--port", "0")
	if code != 0 {
		t.Fatalf("up --detach exited %d:\n%s", code, out)
	}
	pid := lockPID(t, dir)
	t.Cleanup(func() {
		// Only while that PID is still our background winkube: a PID is reused.
		if processAlive(pid) && strings.Contains(cmdline(pid), dir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	for _, want := range []string{"4 nodes Ready", "Context winkube-t1 merged into " + env.kube, "runs in the background (PID " + strconv.Itoa(pid)} {
		if !strings.Contains(out, want) {
			t.Errorf("up --detach output lacks %q:\n%s", want, out)
		}
	}

	list, code := env.run("list", "-o", "json")
	var infos []struct{ Name, Status, APIServer, DataDir string }
	if err := json.Unmarshal([]byte(list), &infos); err != nil || code != 0 || len(infos) != 1 {
		t.Fatalf("list -o json (exit %d): %v\n%s", code, err, list)
	}
	if i := infos[0]; i.Name != "t1" || i.Status != "running" || i.DataDir != dir || !strings.HasPrefix(i.APIServer, "https://127.0.0.1:") {
		t.Errorf("list: %+v", i)
	}
	if out, code := env.run("status", "t1"); code != 0 || !strings.Contains(out, "Cluster t1 is running") {
		t.Errorf("status t1 (exit %d):\n%s", code, out)
	}

	// The merged context is current and reaches the cluster.
	merged, err := clientcmd.LoadFromFile(env.kube)
	if err != nil || merged.CurrentContext != "winkube-t1" {
		t.Fatalf("merged kubeconfig: %v, current context %q", err, merged.CurrentContext)
	}
	if info, _ := os.Stat(env.kube); info.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v", env.kube, info.Mode().Perm())
	}
	printed, code := env.run("kubeconfig", "t1")
	cfg, err := clientcmd.Load([]byte(printed))
	if code != 0 || err != nil || cfg.Clusters["winkube-t1"] == nil || cfg.Clusters["winkube-t1"].Server != infos[0].APIServer {
		t.Errorf("kubeconfig t1 (exit %d, %v):\n%s", code, err, printed)
	}

	if out, code := env.run("stop", "t1"); code != 0 || !strings.Contains(out, "Stopped. State kept") {
		t.Fatalf("stop t1 (exit %d):\n%s", code, out)
	}
	if processAlive(pid) {
		t.Errorf("the background winkube (PID %d) still runs after stop", pid)
	}
	if out, code := env.run("status", "t1"); code != 3 || !strings.Contains(out, "Cluster t1 is stopped") {
		t.Errorf("status of a stopped cluster (exit %d, want 3):\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "etcd")); err != nil {
		t.Errorf("stop lost the state: %v", err)
	}

	if out, code := env.run("down", "t1"); code != 0 || !strings.Contains(out, "Removed context winkube-t1") {
		t.Errorf("down t1 (exit %d):\n%s", code, out)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("down t1 left %s (%v)", dir, err)
	}
	after, err := clientcmd.LoadFromFile(env.kube)
	if err != nil || after.Contexts["winkube-t1"] != nil || after.Clusters["winkube-t1"] != nil || after.AuthInfos["winkube-t1"] != nil {
		t.Errorf("winkube-t1 entries left in the kubeconfig: %v", err)
	}
	if out, _ := env.run("list"); !strings.Contains(out, "No clusters") {
		t.Errorf("list after down:\n%s", out)
	}
	if left := processesOf(base); len(left) > 0 {
		t.Errorf("processes of the test's winkube left: %v", left)
	}
}

// A bad input to `up --detach` is reported by the terminal's process with
// exit 2, and nothing starts or stays behind.
func TestDetachUsageError(t *testing.T) {
	base := t.TempDir()
	env := &lifecycleEnv{t: t, home: filepath.Join(base, "home"), kube: filepath.Join(base, "kube", "config")}
	dir := filepath.Join(base, "data")
	out, code := env.run("up", "--detach", "--name", "t2", "--data-dir", dir, "--apply", filepath.Join(base, "missing.yaml"))
	if code != 2 || !strings.Contains(out, "missing.yaml") {
		t.Errorf("exit %d, want 2 naming the file:\n%s", code, out)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a refused start created %s", dir)
	}
}

// lockPID is the PID in the data dir's lock file: the background winkube.
func lockPID(t *testing.T, dir string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "winkube.lock"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		t.Fatalf("lock file holds %q", data)
	}
	return pid
}

func processAlive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// A zombie has exited; only its parent has not reaped it yet.
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// processesOf are the live processes of the test's binary whose command
// line names a path under base (the background up and the control plane
// it started all do).
func processesOf(base string) []int {
	var out []int
	deadline := time.Now().Add(5 * time.Second)
	for {
		out = out[:0]
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			exe, err := os.Readlink("/proc/" + e.Name() + "/exe")
			if err == nil && exe == winkube && strings.Contains(cmdline(pid), base) && processAlive(pid) {
				out = append(out, pid)
			}
		}
		if len(out) == 0 || time.Now().After(deadline) {
			return out
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func cmdline(pid int) string {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.ReplaceAll(string(data), "\x00", " ")
}
