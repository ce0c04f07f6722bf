// Package kit is what agnhost's subcommands share: the run (App) with its
// klog-format logger, the pod-network listeners and dialer, HTTP serving
// that stops with the container, and file reading and writing with Go's
// error wording.
package kit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/winkube/winkube/pkg/emu/program"
)

// App is one run of agnhost.
type App struct {
	P   *program.Proc
	Log *Klogger
}

// Contains reports whether s is in list.
func Contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// GoPanic prints what an unrecovered Go panic prints first and exits
// with the runtime's status.
func GoPanic(p *program.Proc, msg string) int {
	fmt.Fprintf(p.Stderr, "panic: %s\n\ngoroutine 1 [running]:\n", msg)
	return 2
}

// ReadFile reads a file of the container.
func ReadFile(p *program.Proc, name string) ([]byte, error) {
	f, err := p.Sys.FS.OpenFile(p.Sys.FS.Abs(p.Dir, name), os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ReadNamed is os.ReadFile: unlike the container FS, which would read
// the working directory, it fails on an empty name.
func ReadNamed(p *program.Proc, name string) ([]byte, error) {
	if name == "" {
		return nil, &os.PathError{Op: "open", Err: syscall.ENOENT}
	}
	return ReadFile(p, name)
}

// WriteFile is os.WriteFile on the container's FS.
func WriteFile(p *program.Proc, name string, data []byte, perm os.FileMode) error {
	f, err := p.Sys.FS.OpenFile(p.Sys.FS.Abs(p.Dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// GoError words an FS error as Go's os package does on the container's
// OS: "open /x: no such file or directory", or on Windows
// "open C:\x: The system cannot find the file specified.".
func GoError(p *program.Proc, err error) string {
	var pe *os.PathError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	text := pe.Err.Error()
	if p.Sys.Windows {
		text = program.ErrorText(pe.Err, true)
	}
	return pe.Op + " " + pe.Path + ": " + text
}
