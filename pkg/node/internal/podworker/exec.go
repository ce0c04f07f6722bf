package podworker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	remotecommandserver "k8s.io/cri-streaming/pkg/streaming/remotecommand"
	utilexec "k8s.io/utils/exec"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/node/internal/ctrlog"
)

// podTarget runs exec, attach and port-forward against one pod's
// containers (kubeletapi.Pod).
type podTarget struct{ w *Worker }

// ExecInContainer runs cmd in the container's OS beside its main process.
func (t *podTarget) ExecInContainer(ctx context.Context, _ string, _ string, container string, cmd []string,
	in io.Reader, out, errOut io.WriteCloser, tty bool, resize <-chan remotecommandserver.TerminalSize, _ time.Duration) error {
	var term *program.Terminal
	if tty {
		term = sizedTerminal(ctx, resize)
	} else {
		go drainResize(ctx, resize)
	}
	live, err := t.w.running(container)
	if err != nil {
		return err
	}
	if len(cmd) == 0 {
		return errors.New("command is required")
	}
	p := &program.Proc{Args: cmd, Env: live.env, Dir: live.dir, Stdin: in, Stdout: writerOrDiscard(out), Stderr: writerOrDiscard(errOut), TTY: tty, Term: term}
	if tty {
		p.Stderr = p.Stdout
	}
	code, err := live.sys.Exec(ctx, p)
	if err != nil {
		return execStartError(live, cmd[0], t.w.node.Host.Runtime().OS == "windows")
	}
	if code != 0 {
		return utilexec.CodeExitError{Err: fmt.Errorf("command terminated with exit code %d", code), Code: code}
	}
	return nil
}

// AttachContainer joins the main process's streams: its output from now
// on, and its stdin when the container keeps one open.
func (t *podTarget) AttachContainer(ctx context.Context, _ string, _ string, container string,
	in io.Reader, out, errOut io.WriteCloser, tty bool, resize <-chan remotecommandserver.TerminalSize) error {
	go drainResize(ctx, resize)
	live, err := t.w.running(container)
	if err != nil {
		return err
	}
	if in != nil && live.proc.stdin != nil {
		go func() {
			_, _ = io.Copy(live.proc.stdin, in)
			if live.stdinOnce {
				live.proc.stdin.Close()
			}
		}()
	}
	return ctrlog.Follow(ctx, live.proc.log, writerOrDiscard(out))
}

// firstSizeWait is how long an exec with a TTY waits for the client's
// first terminal size before its program starts (kubectl sends it at
// once), so that the program sees the client's window from the start.
const firstSizeWait = 200 * time.Millisecond

// sizedTerminal is the terminal of an exec with a TTY: sized by the
// client's first resize message and kept in step with the later ones.
func sizedTerminal(ctx context.Context, resize <-chan remotecommandserver.TerminalSize) *program.Terminal {
	term := program.DefaultTerminal()
	if resize == nil {
		return term
	}
	select {
	case s, ok := <-resize:
		if !ok {
			return term
		}
		term.SetSize(s.Height, s.Width)
	case <-time.After(firstSizeWait):
	case <-ctx.Done():
		return term
	}
	go followResize(ctx, resize, term)
	return term
}

// drainResize reads the resize messages of a session without a terminal
// (or one whose size nothing reads), so that the client never blocks.
func drainResize(ctx context.Context, resize <-chan remotecommandserver.TerminalSize) {
	followResize(ctx, resize, nil)
}

// followResize applies each resize message to term (nil: drops them)
// until the session ends.
func followResize(ctx context.Context, resize <-chan remotecommandserver.TerminalSize, term *program.Terminal) {
	if resize == nil {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case s, ok := <-resize:
			if !ok {
				return
			}
			if term != nil {
				term.SetSize(s.Height, s.Width)
			}
		}
	}
}

func writerOrDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// execStartError is the runtime's refusal of a program the image does
// not have: runc's words under containerd, HCS's on Windows.
func execStartError(live *liveCtr, name string, windows bool) error {
	if windows {
		return fmt.Errorf("failed to exec in container: failed to start exec %q: hcs::System::CreateProcess %s: The system cannot find the file specified.: unknown", live.id, live.id)
	}
	return fmt.Errorf("failed to exec in container: failed to start exec %q: OCI runtime exec failed: exec failed: unable to start container process: exec: %q: executable file not found in $PATH: unknown", live.id, name)
}

// liveCtr is what exec and attach need of a running container; the pod
// worker replaces it at each start.
type liveCtr struct {
	id   string
	sys  *program.Sys
	env  []string
	dir  string
	proc *process
	// prevLog is the log of the run before, for kubectl logs --previous.
	prevLog *ctrlog.Log
	// stdinOnce: the first attach session's end closes stdin.
	stdinOnce bool
	// steered: no program runs (the pod's annotations time the
	// container), so what it serves is unknown and its network probes pass.
	steered bool
	// standIn: a stand-in listens on the container's ports in place of
	// its program, so its network probes go over the network.
	standIn bool
}

// running is the live state of a running container, or the error the
// runtime gives for one that is not.
func (w *Worker) running(name string) (*liveCtr, error) {
	for _, c := range w.containers() {
		if c.spec.Name != name {
			continue
		}
		live := c.live.Load()
		if live == nil || live.sys == nil {
			return nil, fmt.Errorf("container %q is not running", name)
		}
		if _, _, done := live.proc.exited(); done {
			return nil, fmt.Errorf("failed to exec in container: container is in CONTAINER_EXITED state")
		}
		return live, nil
	}
	return nil, fmt.Errorf("container %s is not valid for pod %s", name, w.latest().Name)
}

// Status is the status the node last wrote for the pod.
func (t *podTarget) Status() *corev1.PodStatus { return t.w.shown.Load() }

// Log is the log of the container's current or previous run.
func (t *podTarget) Log(container string, previous bool) *ctrlog.Log {
	for _, c := range t.w.containers() {
		if c.spec.Name != container {
			continue
		}
		live := c.live.Load()
		switch {
		case live == nil:
			return nil
		case previous:
			return live.prevLog
		}
		return live.proc.log
	}
	return nil
}
