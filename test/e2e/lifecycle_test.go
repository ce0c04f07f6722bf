package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/winkube/winkube/internal/syncbuf"
)

// Ctrl-C while the control plane starts prints one line (it printed the
// apiserver's 40-line /readyz report), and a first start that was cut
// short leaves no data dir behind.
func TestCtrlCDuringFirstStart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	dir := filepath.Join(t.TempDir(), "data")
	up := exec.Command(winkube, "up", "--data-dir", dir, "--port", "0")
	stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	up.Stdout, up.Stderr = stdout, stderr
	if err := up.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- up.Wait() }()
	t.Cleanup(func() { _ = up.Process.Kill() })
	// Once etcd runs, `up` waits for kube-apiserver's /readyz.
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(stdout.String(), "✓ etcd") {
		if time.Now().After(deadline) {
			t.Fatalf("etcd not started within a minute:\n%s%s", stdout, stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = up.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("up did not stop within 20s of Ctrl-C:\n%s%s", stdout, stderr)
	}
	want := "winkube: interrupted while starting the cluster; removed what it wrote to " + dir + "\n"
	if stderr.String() != want {
		t.Errorf("stderr after Ctrl-C:\n%s\nwant the one line:\n%s", stderr, want)
	}
	if strings.Contains(stdout.String(), "Stopping") {
		t.Errorf("stdout after Ctrl-C:\n%s", stdout)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the interrupted first start left %s behind (%v)", dir, err)
	}
}
