package podworker

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/emu/vnet"
	"github.com/winkube/winkube/pkg/node/internal/ctrlog"
)

// process is the main process of one container run: a program of the
// container's image running against its virtual OS (containeros.go). It
// runs on a goroutine of its own until it ends or settles into waiting to
// be stopped (program.Forever: pause, a daemon), after which it holds no
// goroutine at all. Its end queues the pod worker, which records the exit
// at its next step, as the kubelet's PLEG notices an exit.
type process struct {
	cancelCtx context.CancelFunc
	// closeNet closes the listeners the process bound.
	closeNet func()
	log      *ctrlog.Log
	// stdin is the write end of the process's stdin when the container
	// keeps stdin open (stdin: true), for kubectl attach.
	stdin *io.PipeWriter

	mu      sync.Mutex
	done    bool // the program returned (and was not Forever)
	forever bool // the program waits to be stopped
	status  int
	endedAt time.Time
}

// startProcess starts argv in the container's OS. A program the image
// does not have is an error, which the caller reports as the runtime does.
func (w *Worker) startProcess(c *ctr, sys *program.Sys, spec procSpec) (*process, error) {
	main := spec.main
	if main == nil {
		m, err := sys.Lookup(spec.argv[0])
		if err != nil {
			return nil, err
		}
		main = m
	}
	ctx, cancel := context.WithCancel(w.node.RunCtx)
	ctx, closeNet := vnet.WithProcess(ctx)
	p := &process{cancelCtx: cancel, closeNet: closeNet, log: ctrlog.New(w.clock)}
	if spec.logFile != nil {
		p.log.SetFile(spec.logFile)
	}
	proc := &program.Proc{
		Args: spec.argv, Env: spec.env, Dir: spec.dir, Sys: sys,
		Stdout: p.log.Stdout(), Stderr: p.log.Stderr(), TTY: c.spec.TTY,
	}
	if c.spec.Stdin {
		// kubectl attach writes into it; with stdinOnce the first
		// session's end closes it (exec.go).
		r, pw := io.Pipe()
		p.stdin, proc.Stdin = pw, r
	}
	// The container's OS gets a clock that says when a program first
	// waits on it: the start returns once the program has ended, settled
	// (Forever) or begun to sleep, so what it printed first is in its log
	// when the container is reported Running, as a kubelet reports a
	// start a relist after it happened. (The OS is this run's own, made
	// by prepare, so no copy of it is needed for this.)
	settled := make(chan struct{})
	sys.Clock = &settleClock{Clock: sys.Clock, settled: settled}
	done := make(chan struct{})
	if w.node.Programs != nil {
		w.node.Programs.Add(1)
	}
	go func() {
		if w.node.Programs != nil {
			defer w.node.Programs.Done()
		}
		code, _ := sys.Run(ctx, procWithStdin(proc), main)
		p.finish(code, w.clock.Now())
		close(done)
		if code != program.Forever {
			w.node.Queue(w)
		} else if lf, ok := sys.FS.(*vfs.Lazy); ok && lf.Drop() {
			// A server that only read its files holds no tree, nor
			// the volumes it read them from.
			w.fs.DropAPIVolumes()
		}
	}()
	select {
	case <-settled:
	case <-done:
	case <-time.After(settleWait):
	}
	return p, nil
}

// settleWait bounds how long a start waits for its program to settle (a
// program blocked on stdin or a network never tells).
const settleWait = 100 * time.Millisecond

// settleClock is a clock that says when it is first waited on.
type settleClock struct {
	program.Clock
	once    sync.Once
	settled chan struct{}
}

func (c *settleClock) After(d time.Duration) <-chan time.Time {
	c.once.Do(func() {
		close(c.settled)
		c.settled = nil // the start holds it; the clock stays with the OS
	})
	return c.Clock.After(d)
}

// procWithStdin gives the process an empty stdin when the container has
// none open, as the runtime does.
func procWithStdin(p *program.Proc) *program.Proc {
	if p.Stdin == nil {
		p.Stdin = emptyReader{}
	}
	return p
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, io.EOF }

func (p *process) finish(code int, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if code == program.Forever {
		p.forever = true
		return
	}
	p.done, p.status, p.endedAt = true, code, now
	p.log.Close()
	p.cancel()
}

// exited reports the exit status and time once the program has returned.
func (p *process) exited() (int, time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status, p.endedAt, p.done
}

// cancel ends the process's context and closes the ports it listens on.
func (p *process) cancel() {
	p.cancelCtx()
	if p.closeNet != nil {
		p.closeNet()
	}
}

// stop signals the process (SIGTERM): its context ends, and a program
// that handles the signal returns. A program that waits to be stopped
// ends at once with status 0, as pause and the daemons do.
func (p *process) stop(now time.Time) {
	p.mu.Lock()
	forever := p.forever
	p.mu.Unlock()
	p.cancel()
	if p.stdin != nil {
		p.stdin.Close()
	}
	if forever {
		p.finish(0, now)
	}
}

// kill ends the process for good (SIGKILL after the grace period); the
// caller records its exit code.
func (p *process) kill(now time.Time) {
	p.stop(now)
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.done {
		p.done, p.endedAt = true, now
		p.log.Close()
	}
}

// procSpec is what the container's process is started with.
type procSpec struct {
	argv []string
	env  []string
	dir  string
	// main, when set, runs in place of argv[0]'s program (a stand-in).
	main program.Main
	// logFile is the run's log file on the node (logfiles.go).
	logFile ctrlog.Sink
}
