package cluster

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

func TestDownWithoutOwner(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cluster")
	if err := os.MkdirAll(filepath.Join(dir, "etcd"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, lockFile), []byte("12345\n"), 0o644) // stale: nobody holds the flock
	var out strings.Builder
	if err := Down(context.Background(), dir, &out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("data dir survived down")
	}
	if err := Down(context.Background(), dir, &out); err != nil || !strings.Contains(out.String(), "does not exist") {
		t.Errorf("second down: %v %q", err, out.String())
	}
}

// TestDownStopsOwner holds the data dir's lock from another process, the
// way a running `winkube up` does, and checks that down stops it first.
func TestDownStopsOwner(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock(1) not installed")
	}
	dir := t.TempDir()
	lock := filepath.Join(dir, lockFile)
	os.WriteFile(lock, nil, 0o644)
	owner := exec.Command("flock", "--no-fork", lock, "sleep", "60")
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	defer owner.Process.Kill()
	os.WriteFile(lock, []byte(strconv.Itoa(owner.Process.Pid)), 0o644)
	waitLocked(t, lock)
	if err := Down(context.Background(), dir, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := owner.Wait(); err == nil {
		t.Error("owner exited cleanly; expected it to be terminated by SIGTERM")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Error("data dir survived down")
	}
}

func waitLocked(t *testing.T, path string) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if exec.Command("flock", "--nonblock", path, "true").Run() != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("owner never took the lock")
}

func TestConfigIsSavedAndResumed(t *testing.T) {
	dir := t.TempDir()
	custom := filepath.Join(dir, "custom.yaml")
	os.WriteFile(custom, []byte("apiVersion: winkube.io/v1alpha1\nkind: Cluster\nnodePools:\n- name: w\n  os: windows\n  release: ltsc2022\n  count: 3\n"), 0o644)
	cfg, resumed, err := loadConfig(custom, dir)
	if err != nil || resumed || cfg.NodeCount() != 3 {
		t.Fatalf("loadConfig(custom) = %v, %v, %v", cfg, resumed, err)
	}
	if err := saveConfig(cfg, dir); err != nil {
		t.Fatal(err)
	}
	again, resumed, err := loadConfig("", dir)
	if err != nil || !resumed || again.NodeCount() != 3 || again.NodePools[0].Taints[0] != v1alpha1.WindowsTaint {
		t.Fatalf("resumed config = %+v, %v, %v", again, resumed, err)
	}
	def, resumed, err := loadConfig("", t.TempDir())
	if err != nil || resumed || def.NodeCount() != 4 {
		t.Fatalf("fresh dir config = %v, %v, %v", def, resumed, err)
	}
}
