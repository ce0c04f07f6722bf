// Package supervise starts a process in the background the way a daemon
// starts: a copy of this binary in its own session (so the terminal's
// Ctrl-C and hang-up do not reach it), its output appended to a log file,
// and a pipe on which it says when it is ready. The parent shows the log
// while it waits and returns once the child is ready or has failed.
package supervise

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// ReadyFD is the descriptor the child finds the ready pipe on (the first
// of exec.Cmd's ExtraFiles).
const ReadyFD = 3

// readyWord is what the child writes on the pipe once it is ready.
const readyWord = "ready\n"

// stopGrace is how long an interrupted parent waits for the child it
// stops.
const stopGrace = 30 * time.Second

// Options say what to start.
type Options struct {
	Args []string  // arguments for this binary (without the program name)
	Log  string    // file that receives the child's stdout and stderr
	Out  io.Writer // where the log is shown while the parent waits
}

// FailedError is a child that exited before it was ready.
type FailedError struct {
	Code int    // the child's exit status
	Tail string // the log's last lines
	Log  string
}

func (e *FailedError) Error() string {
	return fmt.Sprintf("the background cluster exited with status %d before it was ready; the last lines of %s:\n%s", e.Code, e.Log, e.Tail)
}

// Start starts the child and waits until it is ready (it returns the
// child's PID) or has exited (a *FailedError). When ctx ends first (Ctrl-C)
// it stops the child with SIGTERM and waits for it.
func Start(ctx context.Context, o Options) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("finding the winkube binary to run in the background: %w", err)
	}
	logW, err := os.OpenFile(o.Log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return 0, fmt.Errorf("opening the log %s: %w", o.Log, err)
	}
	defer logW.Close()
	// Read from where the log ends now: an earlier run's lines are not ours.
	logR, err := os.Open(o.Log)
	if err != nil {
		return 0, fmt.Errorf("opening the log %s: %w", o.Log, err)
	}
	defer logR.Close()
	if _, err := logR.Seek(0, io.SeekEnd); err != nil {
		return 0, fmt.Errorf("reading the log %s: %w", o.Log, err)
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer readyR.Close()
	child := exec.Command(exe, o.Args...)
	child.Stdout, child.Stderr = logW, logW
	child.ExtraFiles = []*os.File{readyW}
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = child.Start()
	readyW.Close() // the child holds the only write end now
	if err != nil {
		return 0, fmt.Errorf("starting winkube in the background: %w", err)
	}
	return wait(ctx, child, readyR, logR, o)
}

// wait shows the log until the child is ready, exits, or ctx ends.
func wait(ctx context.Context, child *exec.Cmd, readyR, logR *os.File, o Options) (int, error) {
	ready := make(chan bool, 1)
	go func() {
		data, _ := io.ReadAll(io.LimitReader(readyR, 64))
		ready <- string(data) == readyWord
	}()
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	tail := &tailWriter{w: o.Out}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case ok := <-ready:
			if ok {
				_, _ = io.Copy(tail, logR)
				// Read the PID before Release, which sets it to -1 (a PID
				// that, given to kill(2), means every process).
				pid := child.Process.Pid
				_ = child.Process.Release()
				return pid, nil
			}
			ready = nil // EOF without the word: the child is exiting
		case err := <-exited:
			_, _ = io.Copy(tail, logR)
			return 0, &FailedError{Code: exitCode(err), Tail: tail.last(15), Log: o.Log}
		case <-ctx.Done():
			_ = child.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(stopGrace):
				_ = child.Process.Kill()
				<-exited
			}
			_, _ = io.Copy(tail, logR)
			return 0, errors.New("interrupted while the cluster started in the background; it was stopped")
		case <-tick.C:
			_, _ = io.Copy(tail, logR)
		}
	}
}

func exitCode(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() > 0 {
		return exit.ExitCode()
	}
	return 1
}

// Ready tells the parent that started this process that it is ready, if
// one did: fd is the descriptor of the ready pipe (0: not started by
// Start). Call it once; the pipe is closed afterwards.
func Ready(fd int) error {
	if fd == 0 {
		return nil
	}
	f := os.NewFile(uintptr(fd), "ready")
	defer f.Close()
	if _, err := f.WriteString(readyWord); err != nil {
		return fmt.Errorf("telling the parent winkube that the cluster is ready: %w", err)
	}
	return nil
}

// Inherit keeps the ready pipe from the processes this one starts (the
// control plane's children), so that only this process can hold it open.
func Inherit(fd int) {
	if fd > 0 {
		syscall.CloseOnExec(fd)
	}
}

// tailWriter passes lines on and remembers the last ones.
type tailWriter struct {
	w     io.Writer
	lines []string
	part  string
}

func (t *tailWriter) Write(p []byte) (int, error) {
	if t.w != nil {
		if _, err := t.w.Write(p); err != nil {
			return 0, err
		}
	}
	s := bufio.NewScanner(strings.NewReader(t.part + string(p)))
	t.part = ""
	complete := strings.HasSuffix(string(p), "\n")
	var got []string
	for s.Scan() {
		got = append(got, s.Text())
	}
	if !complete && len(got) > 0 {
		t.part, got = got[len(got)-1], got[:len(got)-1]
	}
	t.lines = append(t.lines, got...)
	if len(t.lines) > 100 {
		t.lines = t.lines[len(t.lines)-100:]
	}
	return len(p), nil
}

func (t *tailWriter) last(n int) string {
	lines := t.lines
	if t.part != "" {
		lines = append(lines, t.part)
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}
