package process

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	remotecommandserver "k8s.io/cri-streaming/pkg/streaming/remotecommand"
	utilexec "k8s.io/utils/exec"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/node/internal/ctrlog"
)

// Terminal is the terminal of an exec session: sized by the client's
// resize messages with a TTY (sizedTerminal), nil without one, whose
// resize messages are drained.
func Terminal(ctx context.Context, tty bool, resize <-chan remotecommandserver.TerminalSize) *program.Terminal {
	var term *program.Terminal
	if tty {
		term = sizedTerminal(ctx, resize)
	} else {
		go DrainResize(ctx, resize)
	}
	return term
}

// Exec runs cmd in the container's OS beside its main process, on term
// (Terminal; nil: no TTY).
func (live *Live) Exec(ctx context.Context, cmd []string, in io.Reader, out, errOut io.WriteCloser, term *program.Terminal, windows bool) error {
	tty := term != nil
	if len(cmd) == 0 {
		return errors.New("command is required")
	}
	p := &program.Proc{Args: cmd, Env: live.Env, Dir: live.Dir, Stdin: in, Stdout: writerOrDiscard(out), Stderr: writerOrDiscard(errOut), TTY: tty, Term: term}
	if tty {
		p.Stderr = p.Stdout
	}
	code, err := live.Sys.Exec(ctx, p)
	if err != nil {
		return execStartError(live, cmd[0], windows)
	}
	if code != 0 {
		return utilexec.CodeExitError{Err: fmt.Errorf("command terminated with exit code %d", code), Code: code}
	}
	return nil
}

// Attach joins the main process's streams: its output from now on, and
// its stdin when the container keeps one open.
func (live *Live) Attach(ctx context.Context, in io.Reader, out io.WriteCloser) error {
	if in != nil && live.Proc.Stdin != nil {
		go func() {
			_, _ = io.Copy(live.Proc.Stdin, in)
			if live.StdinOnce {
				live.Proc.Stdin.Close()
			}
		}()
	}
	return ctrlog.Follow(ctx, live.Proc.Log, writerOrDiscard(out))
}

// DrainResize reads the resize messages of a session without a terminal
// (or one whose size nothing reads), so that the client never blocks.
func DrainResize(ctx context.Context, resize <-chan remotecommandserver.TerminalSize) {
	followResize(ctx, resize, nil)
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
func execStartError(live *Live, name string, windows bool) error {
	if windows {
		return fmt.Errorf("failed to exec in container: failed to start exec %q: hcs::System::CreateProcess %s: The system cannot find the file specified.: unknown", live.ID, live.ID)
	}
	return fmt.Errorf("failed to exec in container: failed to start exec %q: OCI runtime exec failed: exec failed: unable to start container process: exec: %q: executable file not found in $PATH: unknown", live.ID, name)
}

// Live is what exec and attach need of a running container; the pod
// worker replaces it at each start.
type Live struct {
	ID   string
	Sys  *program.Sys
	Env  []string
	Dir  string
	Proc *Process
	// PrevLog is the log of the run before, for kubectl logs --previous.
	PrevLog *ctrlog.Log
	// StdinOnce: the first attach session's end closes stdin.
	StdinOnce bool
	// Steered: no program runs (the pod's annotations time the
	// container), so what it serves is unknown and its network probes pass.
	Steered bool
	// StandIn: a stand-in listens on the container's ports in place of
	// its program, so its network probes go over the network.
	StandIn bool
}
