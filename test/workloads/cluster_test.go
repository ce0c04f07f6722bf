package workloads

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Hang guards: generous on a loaded 2-core machine, never a measure.
const (
	startGuard = 5 * time.Minute
	stopGuard  = time.Minute
	waitGuard  = 3 * time.Minute
)

// cluster is a running `winkube up` shared by the rows that need it.
type cluster struct {
	dir string
	cfg *rest.Config
	cs  kubernetes.Interface

	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	out  strings.Builder

	curlOnce sync.Once
	curlErr  error
}

// startCluster runs `winkube up` with the cluster config testdata/extra/
// config in a private data dir, waits until it says the cluster is
// running, and stops it by its PID when t ends.
func startCluster(t *testing.T, config string) *cluster {
	t.Helper()
	c := &cluster{dir: t.TempDir(), done: make(chan struct{})}
	c.cmd = exec.Command(winkube, "up", "--data-dir", c.dir, "--port", "0", "--config", filepath.Join(testdata, "extra", config))
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.cmd.Stderr = c.cmd.Stdout
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.stop(t) })
	running := make(chan struct{})
	go func() {
		defer close(c.done)
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			c.mu.Lock()
			c.out.WriteString(s.Text() + "\n")
			c.mu.Unlock()
			if strings.HasPrefix(s.Text(), "The cluster is running") {
				close(running)
			}
		}
		_ = c.cmd.Wait()
	}()
	select {
	case <-running:
	case <-c.done:
		t.Fatalf("winkube up exited early:\n%s", c.output())
	case <-time.After(startGuard):
		t.Fatalf("winkube up not running after %s:\n%s", startGuard, c.output())
	}
	c.cfg, err = clientcmd.BuildConfigFromFlags("", c.kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	c.cs = kubernetes.NewForConfigOrDie(c.cfg)
	return c
}

func (c *cluster) kubeconfig() string { return filepath.Join(c.dir, "kubeconfig") }

func (c *cluster) output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

// stop is Ctrl-C, as a user stops `winkube up`, and a kill if it hangs.
// The process is ours and not yet waited for, so its PID is still its own.
func (c *cluster) stop(t *testing.T) {
	select {
	case <-c.done:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.done:
	case <-time.After(stopGuard):
		t.Errorf("winkube up did not stop within %s of Ctrl-C; killing it", stopGuard)
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// ctx is a context bounded by the wait hang guard.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), waitGuard)
	t.Cleanup(cancel)
	return c
}
