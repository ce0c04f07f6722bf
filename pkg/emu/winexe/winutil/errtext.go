// Package winutil holds what the Windows programs (wincmd, pwsh, winexe)
// share: the Windows rules for splitting and quoting a command line, an
// HTTP GET over a pod's program.Net, and the pod's address. It is a
// helper, not a program family: it imports only package program.
package winutil

import (
	"errors"
	"io/fs"
	"syscall"
)

// IsNotExist reports whether err means a missing file or directory.
func IsNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOENT)
}
