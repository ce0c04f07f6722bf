package controlplane

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrDataDirInUse is wrapped by Start's error when another control plane
// holds the data dir.
var ErrDataDirInUse = errors.New("data dir in use")

// lockDataDir takes an exclusive flock on <data-dir>/winkube.lock and writes
// our PID into it. flock (not a PID file alone) because the kernel drops it
// when the holder dies, even by SIGKILL, so a crash never leaves a stale lock.
func lockDataDir(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s is held by %s (lock %s); stop it or choose another data dir",
				ErrDataDirInUse, filepath.Dir(path), holder(path), filepath.Base(path))
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// Best effort: the PID only makes a second instance's error friendlier.
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return f, nil
}

// holder names the process holding the lock, as far as the lock file tells.
func holder(path string) string {
	data, err := os.ReadFile(path)
	if pid, convErr := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && convErr == nil {
		return fmt.Sprintf("another winkube (pid %d)", pid)
	}
	return "another winkube"
}
