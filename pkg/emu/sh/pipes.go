package sh

import (
	"context"
	"io"
	"os"
	"sync"
	"time"
)

// interp keeps its stdin, pipelines and here-documents in OS pipes (the
// only reader it can share with subprocesses); these are in-process
// kernel pipes, not host files. The helpers here make sure that every
// copying goroutine ends when the shell is done with the pipe.

// pipeFrom feeds r into a new pipe and returns its read end; the copy
// ends when r is drained or the read end is closed.
func pipeFrom(r io.ReadCloser) (*os.File, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		r.Close()
		return nil, err
	}
	go func() {
		io.Copy(pw, r)
		pw.Close()
		r.Close()
	}()
	return pr, nil
}

// stdinFile gives interp the process's stdin as an *os.File. stop closes
// our read end, which ends the copy unless it is blocked reading r (then
// it ends with r's next read, when the caller closes r).
func stdinFile(r io.Reader) (*os.File, func(), error) {
	if f, ok := r.(*os.File); ok {
		return f, func() {}, nil
	}
	f, err := pipeFrom(io.NopCloser(r))
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// unblockOnDone makes a program blocked on a pipe of the shell return
// once ctx is done: reads and writes on an *os.File pipe take deadlines.
// The returned func releases the watch.
func unblockOnDone(ctx context.Context, in io.Reader, out io.Writer) func() bool {
	return context.AfterFunc(ctx, func() {
		if f, ok := in.(*os.File); ok {
			f.SetReadDeadline(time.Now())
		}
		if f, ok := out.(*os.File); ok {
			f.SetWriteDeadline(time.Now())
		}
	})
}

// lockedWriter serializes writes from a pipeline's concurrent parts and
// background jobs to a writer that may not be safe for that.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func lock(mu *sync.Mutex, w io.Writer) io.Writer {
	if _, ok := w.(*os.File); ok || w == nil {
		return w
	}
	return lockedWriter{mu, w}
}
