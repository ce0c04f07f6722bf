package cluster

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The running cluster learns that down, not Ctrl-C, stops it: the marker
// is there when its SIGTERM arrives.
func TestDownTellsTheOwnerBeforeStoppingIt(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock(1) not installed")
	}
	dir := t.TempDir()
	seen := filepath.Join(t.TempDir(), "seen")
	lock := filepath.Join(dir, lockFile)
	os.WriteFile(lock, nil, 0o644)
	os.WriteFile(filepath.Join(dir, savedConfig), nil, 0o644)
	// Short foreground sleeps, not `wait` on one long one: a TERM that
	// lands just before the shell blocks in wait can be missed until the
	// child ends, and each sleep holds the inherited lock only briefly.
	script := `trap 'test -e "$1/` + downMarker + `" && echo yes > "$2"; exit 0' TERM; : > "$2.ready"; while :; do sleep 0.1; done`
	owner := exec.Command("flock", "--no-fork", lock, "sh", "-c", script, "sh", dir, seen)
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	defer owner.Process.Kill()
	os.WriteFile(lock, []byte(strconv.Itoa(owner.Process.Pid)), 0o644)
	waitLocked(t, lock)
	for i := 0; ; i++ { // until the trap is set
		if _, err := os.Stat(seen + ".ready"); err == nil {
			break
		}
		if i == 1000 {
			t.Fatal("the owner's shell never set its trap")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := Down(context.Background(), dir, io.Discard); err != nil {
		t.Fatal(err)
	}
	_ = owner.Wait()
	if data, _ := os.ReadFile(seen); strings.TrimSpace(string(data)) != "yes" {
		t.Error("the owner saw no down marker when it was stopped")
	}
}

// A cluster that down stops does not claim to keep the state down deletes.
func TestStopSaysWhetherStateIsKept(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	c := &Cluster{DataDir: dir, out: &out, services: []service{}}
	c.Stop()
	if !strings.Contains(out.String(), "State kept in "+dir) {
		t.Errorf("Ctrl-C stop: %q", out.String())
	}
	out.Reset()
	os.WriteFile(filepath.Join(dir, downMarker), nil, 0o644)
	c = &Cluster{DataDir: dir, out: &out, services: []service{}}
	c.Stop()
	if strings.Contains(out.String(), "State kept") || !strings.Contains(out.String(), "winkube down deletes "+dir) {
		t.Errorf("stop by down: %q", out.String())
	}
}
