// Package hostdir gives an emulated program a private directory on the
// host, for what the real program keeps on disk and the container's
// in-memory filesystem cannot hold (etcd's database, the files an API
// server's flags name). The program removes it when it stops. A winkube
// process can end without stopping its containers' programs (the node
// agent does not wait for them), so each directory carries its process's
// ID, and the next directory made removes those of processes that are
// gone.
package hostdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Make creates a directory for a program of the given kind ("etcd"),
// readable by this user alone, after removing the kind's directories
// left by processes that have ended.
func Make(kind string) (string, error) {
	sweep(kind)
	return os.MkdirTemp("", fmt.Sprintf("winkube-%s-%d-", kind, os.Getpid()))
}

// sweep removes the kind's directories whose process has ended.
func sweep(kind string) {
	prefix := "winkube-" + kind + "-"
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+"*-*"))
	for _, d := range dirs {
		pidText, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(d), prefix), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || alive(pid) {
			continue
		}
		_ = os.RemoveAll(d)
	}
}

// alive reports whether a process exists; when it cannot tell (another
// user's process, an OS without signal 0) it says yes, so nothing of a
// running process is removed.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || !(errors.Is(err, os.ErrProcessDone) || errors.Is(err, syscall.ESRCH))
}
