package cluster

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/datadir"
)

func TestDownWithoutOwner(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cluster")
	if err := os.MkdirAll(filepath.Join(dir, "etcd"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, lockFile), []byte("12345\n"), 0o644) // stale: nobody holds the flock
	os.WriteFile(filepath.Join(dir, savedConfig), nil, 0o644)
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

// A source tree given as the data dir survives down: the issue's
// `cd myproject && winkube down --data-dir .` deleted it.
func TestDownRefusesOtherDirectories(t *testing.T) {
	project := t.TempDir()
	os.WriteFile(filepath.Join(project, "go.mod"), []byte("module x\n"), 0o644)
	var out strings.Builder
	err := Down(context.Background(), project, &out)
	var refused *datadir.RefusedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), project) || !strings.Contains(err.Error(), "no winkube.lock") {
		t.Errorf("down of a project: %v", err)
	}
	if _, err := os.Stat(filepath.Join(project, "go.mod")); err != nil {
		t.Errorf("the project lost its files: %v", err)
	}
	// The current directory is refused even when it is a data dir.
	os.WriteFile(filepath.Join(project, lockFile), nil, 0o644)
	os.WriteFile(filepath.Join(project, savedConfig), nil, 0o644)
	t.Chdir(project)
	if err := Down(context.Background(), ".", &out); !errors.As(err, &refused) {
		t.Errorf("down of the current directory: %v", err)
	}
	if out.Len() > 0 {
		t.Errorf("a refused down printed %q", out.String())
	}
}

// A symlink to a data dir deletes the data dir, not only the link.
func TestDownThroughSymlink(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "data")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, lockFile), nil, 0o644)
	os.WriteFile(filepath.Join(dir, savedConfig), nil, 0o644)
	link := filepath.Join(base, "link")
	os.Symlink(dir, link)
	if err := Down(context.Background(), link, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, link} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s survived down", p)
		}
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
	os.WriteFile(filepath.Join(dir, savedConfig), nil, 0o644)
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
