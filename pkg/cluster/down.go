package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/kubeconfig"
)

// lockFile is the file a running `winkube up` holds an exclusive flock on;
// it contains the holder's PID.
const lockFile = datadir.LockFile

// downMarker is written by `winkube down` into the data dir of a running
// cluster before it stops it: the cluster then says its state is being
// deleted, not kept. A cluster that starts removes a stale one.
const downMarker = "down-requested"

// Down stops the `winkube up` that owns dir, if any, then deletes dir. It
// refuses (a *datadir.RefusedError) a directory that is not a winkube data
// dir, and the root, home and current directories whatever they hold.
func Down(ctx context.Context, dir string, out io.Writer) error {
	dir, err := datadir.Resolve(dir)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(out, "Nothing to delete: %s does not exist.\n", dir)
		return nil
	}
	if err := datadir.CheckRemovable(dir); err != nil {
		return err
	}
	// Delete the directory a symlink names, not only the link.
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("reading data dir %s: %w", dir, err)
	}
	if err := stopOwner(ctx, real, out); err != nil {
		return err
	}
	name, ca := datadir.ReadName(real), kubeconfig.CA(datadir.Kubeconfig(real))
	if err := os.RemoveAll(real); err != nil {
		return fmt.Errorf("deleting data dir %s: %w", real, err)
	}
	if real != dir {
		_ = os.Remove(dir)
	}
	fmt.Fprintf(out, "Deleted %s.\n", dir)
	if name == "" {
		return nil // an older winkube's data dir: nothing was merged or registered
	}
	if err := datadir.Unregister(name, real); err != nil {
		fmt.Fprintf(out, "Warning: %v\n", err)
	}
	return unmerge(name, ca, out)
}

// unmerge removes the cluster's context from the user's kubeconfig; a
// context of the same name that another cluster's CA signs stays.
func unmerge(name string, ca []byte, out io.Writer) error {
	if ca == nil {
		return nil
	}
	path, err := kubeconfig.Path()
	if err != nil {
		return err
	}
	removed, err := kubeconfig.Remove(path, name, ca)
	if err != nil {
		return err
	}
	if removed {
		fmt.Fprintf(out, "Removed context %s from %s.\n", kubeconfig.ContextName(name), path)
	}
	return nil
}

// lockHeld reports whether a process holds the flock on path (a missing
// file is not held).
func lockHeld(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("opening %s: %w", path, err)
	}
	defer f.Close() // releases our own flock
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// stopOwner sends SIGTERM to the process holding the data dir's lock and
// waits until it lets go of it.
func stopOwner(ctx context.Context, dir string, out io.Writer) error {
	path := filepath.Join(dir, lockFile)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
		return nil // nobody runs this cluster
	}
	data, _ := os.ReadFile(path)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		return fmt.Errorf("%s is locked by a running winkube but holds no PID; stop it first", path)
	}
	fmt.Fprintf(out, "Stopping the running cluster (PID %d)...\n", pid)
	// Tell it why, so it does not say it keeps the state we delete next.
	_ = os.WriteFile(filepath.Join(dir, downMarker), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stopping PID %d: %w", pid, err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		if time.Now().After(deadline) {
			return fmt.Errorf("PID %d did not stop within 20s; kill it and run winkube down again", pid)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}
