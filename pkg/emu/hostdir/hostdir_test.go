package hostdir

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A directory left by a process that has ended is removed when the next
// one is made; this process's own and a live process's are kept.
func TestMakeRemovesTheDirectoriesOfEndedProcesses(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1) to make an ended process:", err)
	}
	kind := fmt.Sprintf("hostdirtest%d", os.Getpid())
	mk := func(pid int) string {
		d, err := os.MkdirTemp("", fmt.Sprintf("winkube-%s-%d-", kind, pid))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	ended, live, own := mk(cmd.Process.Pid), mk(os.Getppid()), mk(os.Getpid())
	d, err := Make(kind)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(d)
	if _, err := os.Stat(ended); !os.IsNotExist(err) {
		t.Errorf("the ended process's directory %s is still there (%v)", ended, err)
	}
	for _, keep := range []string{live, own, d} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s: %v", keep, err)
		}
	}
	if m, _ := filepath.Match(filepath.Join(os.TempDir(), fmt.Sprintf("winkube-%s-%d-*", kind, os.Getpid())), d); !m {
		t.Errorf("made %s, not under this process's ID", d)
	}
}
