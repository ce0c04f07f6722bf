package kubeflags

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/winkube/winkube/pkg/datadir"
)

// NotRunningError says that nothing answers at the cluster's address, and
// how to start it when it is a winkube cluster.
type NotRunningError struct {
	Server string
	Hint   string // how to start it; empty for a cluster winkube does not run
	From   string // the flag or variable that named the cluster, for the other case
	Err    error
}

func (e *NotRunningError) Error() string {
	if e.Hint != "" {
		return fmt.Sprintf("the cluster is not running (nothing answers at %s): %s", e.Server, e.Hint)
	}
	return fmt.Sprintf("nothing answers at %s (connection refused): is the cluster of %s running? (check --kubeconfig and --context)", e.Server, e.From)
}

func (e *NotRunningError) Unwrap() error { return e.Err }

// Explain turns a refused connection to the API server into a
// NotRunningError; other errors are returned as they are.
func (f *Flags) Explain(err error) error {
	if err == nil || !refused(err) {
		return err
	}
	var already *NotRunningError
	if errors.As(err, &already) {
		return err
	}
	from := f.from
	if f.ctx != "" {
		from += ", context " + f.ctx
	}
	return &NotRunningError{Server: f.server, Hint: f.startHint(), From: from, Err: err}
}

func refused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(err.Error(), "connection refused")
}

// startHint is the command that starts the cluster: the data dir's, or
// winkube-NAME's of a merged kubeconfig.
func (f *Flags) startHint() string {
	if f.dir != "" {
		return "start it with `" + upCommand(f.dir) + "`"
	}
	name, ok := strings.CutPrefix(f.ctx, "winkube-")
	switch {
	case !ok:
		return ""
	case name == datadir.DefaultName:
		return "start it with `winkube up` (or `winkube up --detach`)"
	case datadir.CheckName(name) == nil:
		return fmt.Sprintf("start it with `winkube up --name %s` (or add --detach)", name)
	}
	return ""
}

// upCommand starts the cluster of dir: by its name when it has one and
// lives where that name says, else by its directory.
func upCommand(dir string) string {
	name := datadir.ReadName(dir)
	if name != "" {
		if byName, err := datadir.ForName(name); err == nil && samePath(byName, dir) {
			if name == datadir.DefaultName {
				return "winkube up"
			}
			return "winkube up --name " + name
		}
	}
	if def, err := datadir.Default(); err == nil && samePath(def, dir) {
		return "winkube up"
	}
	return "winkube up --data-dir " + dir
}

func samePath(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}
