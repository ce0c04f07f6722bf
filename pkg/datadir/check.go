package datadir

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The two files that mark a directory as a winkube data dir. `winkube up`
// takes the lock as soon as it owns a directory (pkg/controlplane) and
// saves the cluster config once the control plane runs (pkg/cluster).
const (
	LockFile   = "winkube.lock"
	ConfigFile = "cluster.yaml"
)

// RefusedError says why winkube will not delete or use a directory. The
// CLI reports it as a usage error: the user must name another directory.
type RefusedError struct {
	Dir    string
	Action string // "delete" or "use"
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refusing to %s %s: %s", e.Action, e.Dir, e.Reason)
}

// CheckRemovable returns a *RefusedError unless dir is a winkube data dir
// that is safe to delete: it holds both marker files, and it is not the
// root, the home directory, the current directory or one of their
// ancestors (those are refused even when they look like data dirs, since
// deleting them loses far more than a cluster).
func CheckRemovable(dir string) error {
	refuse := func(reason string) error { return &RefusedError{Dir: dir, Action: "delete", Reason: reason} }
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("reading data dir %s: %w", dir, err)
	}
	info, err := os.Stat(real)
	if err != nil {
		return fmt.Errorf("reading data dir %s: %w", dir, err)
	}
	var reasons []string
	if !info.IsDir() {
		reasons = append(reasons, "it is not a directory")
	} else if missing := missingMarkers(real); len(missing) > 0 {
		reasons = append(reasons, fmt.Sprintf("it is not a winkube data dir: it has no %s (`winkube up` writes %s and %s into every data dir; delete other directories yourself)",
			strings.Join(missing, " and no "), LockFile, ConfigFile))
	}
	if reason := dangerous(real); reason != "" {
		reasons = append(reasons, reason)
	}
	if len(reasons) > 0 {
		return refuse(strings.Join(reasons, "; and "))
	}
	return nil
}

// CheckUsable returns a *RefusedError when `winkube up` must not put a
// cluster in dir: an existing directory that is neither empty nor already
// holds a cluster (winkube's lock file). A cluster's files mixed into a
// project would make `winkube down` of it impossible, and its first
// failure would leave files behind in the user's directory.
func CheckUsable(dir string) error {
	info, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading data dir %s (--data-dir): %w", dir, err)
	}
	refuse := func(reason string) error { return &RefusedError{Dir: dir, Action: "use", Reason: reason} }
	if !info.IsDir() {
		return refuse("it is not a directory (choose another --data-dir)")
	}
	if has(dir, LockFile) {
		return nil
	}
	// Image facts imported before the first `up` are the cluster's to
	// read, not a stranger's files.
	empty, err := isEmpty(dir, ImagesDir)
	if err != nil {
		return fmt.Errorf("reading data dir %s (--data-dir): %w", dir, err)
	}
	if !empty {
		return refuse(fmt.Sprintf("it is not empty and not a winkube data dir (no %s); choose a new or empty directory with --data-dir", LockFile))
	}
	return nil
}

// IsEmptyOrMissing reports whether dir holds nothing yet: what `winkube
// up` may remove again when its first start fails. Imported image facts
// are something: a failed start must not lose them.
func IsEmptyOrMissing(dir string) (bool, error) {
	empty, err := isEmpty(dir)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	return empty, err
}

func missingMarkers(dir string) []string {
	var missing []string
	for _, name := range []string{LockFile, ConfigFile} {
		if !has(dir, name) {
			missing = append(missing, name)
		}
	}
	return missing
}

func has(dir, name string) bool {
	info, err := os.Lstat(filepath.Join(dir, name))
	return err == nil && info.Mode().IsRegular()
}

// isEmpty reports whether dir holds nothing but, at most, the log a
// background start (`up --detach`) opens before the cluster takes the dir
// and the entries named also.
func isEmpty(dir string, also ...string) (bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	names, err := f.Readdirnames(2 + len(also))
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	for _, n := range names {
		if n != LogFile && !slices.Contains(also, n) {
			return false, nil
		}
	}
	return true, nil
}
