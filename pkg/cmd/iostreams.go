// Package cmd holds what every winkube command shares: the I/O streams and
// the error type that carries an exit code up to main.
package cmd

import (
	"fmt"
	"io"
)

// IOStreams are the standard streams a command reads and writes.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// ExitError ends the program with Code. Err, when set, is printed once by
// the top level; a nil Err means the command already said what it had to.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }
