// Package process is the main process of one container run and what
// exec and attach reach of a running container (Live): a program of the
// container's image running against its virtual OS, its log and its
// stdin. It is given what it uses (Config), never the pod worker.
package process

import (
	"context"
	"io"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/emu/vnet"
	"github.com/winkube/winkube/pkg/node/internal/ctrlog"
)

// Process is the main process of one container run: a program of the
// container's image running against its virtual OS (podworker's
// containeros.go). It runs on a goroutine of its own until it ends or
// settles into waiting to be stopped (program.Forever: pause, a daemon),
// after which it holds no goroutine at all. Its end calls Config.Ended
// (the pod worker queues itself and records the exit at its next step,
// as the kubelet's PLEG notices an exit).
type Process struct {
	cancelCtx context.CancelFunc
	// closeNet closes the listeners the process bound.
	closeNet func()
	// Log is the run's log.
	Log *ctrlog.Log
	// Stdin is the write end of the process's stdin when the container
	// keeps stdin open (stdin: true), for kubectl attach.
	Stdin *io.PipeWriter

	mu      sync.Mutex
	done    bool // the program returned (and was not Forever)
	forever bool // the program waits to be stopped
	status  int
	endedAt time.Time
}

// Config is what a container's process runs with.
type Config struct {
	// Ctx ends when the agent closes; Clock is the container's time.
	Ctx   context.Context
	Clock clock.Clock
	// Programs counts the programs running on goroutines of their own,
	// so the agent can wait for their clean-up; nil: not counted.
	Programs *sync.WaitGroup
	// TTY and Stdin are the container's tty and stdin.
	TTY, Stdin bool
	// Ended is called when the program has returned; Dropped when a
	// program that waits to be stopped let go of its filesystem's tree
	// (a server that only read its files).
	Ended   func()
	Dropped func()
}

// Start starts argv in the container's OS. A program the image does not
// have is an error, which the caller reports as the runtime does.
func Start(cfg Config, sys *program.Sys, spec Spec) (*Process, error) {
	main := spec.Main
	if main == nil {
		m, err := sys.Lookup(spec.Argv[0])
		if err != nil {
			return nil, err
		}
		main = m
	}
	ctx, cancel := context.WithCancel(cfg.Ctx)
	ctx, closeNet := vnet.WithProcess(ctx)
	p := &Process{cancelCtx: cancel, closeNet: closeNet, Log: ctrlog.New(cfg.Clock)}
	if spec.LogFile != nil {
		p.Log.SetFile(spec.LogFile)
	}
	proc := &program.Proc{
		Args: spec.Argv, Env: spec.Env, Dir: spec.Dir, Sys: sys,
		Stdout: p.Log.Stdout(), Stderr: p.Log.Stderr(), TTY: cfg.TTY,
	}
	if cfg.Stdin {
		// kubectl attach writes into it; with stdinOnce the first
		// session's end closes it (exec.go).
		r, pw := io.Pipe()
		p.Stdin, proc.Stdin = pw, r
	}
	// The container's OS gets a clock that says when a program first
	// waits on it: the start returns once the program has ended, settled
	// (Forever) or begun to sleep, so what it printed first is in its log
	// when the container is reported Running, as a kubelet reports a
	// start a relist after it happened. (The OS is this run's own, made
	// by the pod worker's prepare, so no copy of it is needed for this.)
	settled := make(chan struct{})
	sys.Clock = &settleClock{Clock: sys.Clock, settled: settled}
	done := make(chan struct{})
	if cfg.Programs != nil {
		cfg.Programs.Add(1)
	}
	go func() {
		if cfg.Programs != nil {
			defer cfg.Programs.Done()
		}
		code, _ := sys.Run(ctx, procWithStdin(proc), main)
		p.finish(code, cfg.Clock.Now())
		close(done)
		if code != program.Forever {
			cfg.Ended()
		} else if lf, ok := sys.FS.(*vfs.Lazy); ok && lf.Drop() {
			// A server that only read its files holds no tree, nor
			// the volumes it read them from.
			cfg.Dropped()
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

func (p *Process) finish(code int, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if code == program.Forever {
		p.forever = true
		return
	}
	p.done, p.status, p.endedAt = true, code, now
	p.Log.Close()
	p.cancel()
}

// Exited reports the exit status and time once the program has returned.
func (p *Process) Exited() (int, time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status, p.endedAt, p.done
}

// cancel ends the process's context and closes the ports it listens on.
func (p *Process) cancel() {
	p.cancelCtx()
	if p.closeNet != nil {
		p.closeNet()
	}
}

// Stop signals the process (SIGTERM): its context ends, and a program
// that handles the signal returns. A program that waits to be stopped
// ends at once with status 0, as pause and the daemons do.
func (p *Process) Stop(now time.Time) {
	p.mu.Lock()
	forever := p.forever
	p.mu.Unlock()
	p.cancel()
	if p.Stdin != nil {
		p.Stdin.Close()
	}
	if forever {
		p.finish(0, now)
	}
}

// Kill ends the process for good (SIGKILL after the grace period); the
// caller records its exit code.
func (p *Process) Kill(now time.Time) {
	p.Stop(now)
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.done {
		p.done, p.endedAt = true, now
		p.Log.Close()
	}
}

// Idle stands in for a container whose program the emulation does not
// run: it has an empty log and ends when the pod worker says so.
func Idle(c clock.PassiveClock) *Process {
	return &Process{cancelCtx: func() {}, Log: ctrlog.New(c), forever: true}
}

// Spec is what the container's process is started with.
type Spec struct {
	Argv []string
	Env  []string
	Dir  string
	// Main, when set, runs in place of Argv[0]'s program (a stand-in).
	Main program.Main
	// LogFile is the run's log file on the node (podworker's logfiles.go).
	LogFile ctrlog.Sink
}
