package e2e

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

// stopOurs stops a process a test started without holding its
// *exec.Cmd (a background `winkube up`, a `winkube nodes` started by a
// script): SIGTERM, then SIGKILL after 10 s. It does nothing unless the
// PID is still a process of the test's winkube binary, since PIDs are
// reused.
func stopOurs(pid int) {
	if pid <= 1 {
		return
	}
	if exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe"); err != nil || exe != winkube {
		return
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 100 && processAlive(pid); i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if processAlive(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
