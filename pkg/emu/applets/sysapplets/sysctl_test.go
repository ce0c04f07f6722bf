package sysapplets

import (
	"bytes"
	"context"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs/vfstest"
)

// The sysctl e2e test runs `sysctl kernel.shm_rmid_forced` in a pod that
// sets it: the value the node put under /proc/sys.
func TestSysctl(t *testing.T) {
	fs := vfstest.New(nil)
	_ = fs.MkdirAll("/proc/sys/kernel", 0o755)
	fs.Put("/proc/sys/kernel/shm_rmid_forced", "1\n", 0o644)
	var out, errb bytes.Buffer
	p := &program.Proc{Args: []string{"/bin/sysctl", "kernel.shm_rmid_forced", "net.nope"}, Dir: "/", Stdout: &out, Stderr: &errb,
		Sys: &program.Sys{FS: fs}}
	if code := Sysctl(context.Background(), p); code != 1 || out.String() != "kernel.shm_rmid_forced = 1\n" ||
		errb.String() != "sysctl: error: 'net.nope' is an unknown key\n" {
		t.Errorf("code %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
