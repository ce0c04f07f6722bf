package podworker

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/node/internal/ctrlog"
	"github.com/winkube/winkube/pkg/node/internal/process"
)

// launchSpec is what prepare decided for one container start: the
// container's OS and main process, or, when the emulation has no program
// to run (an image it does not know and no command), why not: the
// container then runs as the pod's annotations say.
type launchSpec struct {
	sys  *program.Sys
	spec process.Spec
	// steered: the process's run time and exit come from the pod's
	// annotations (or their defaults) instead of a program.
	steered bool
	why     string
	// standIn, for a steered container, runs in place of its program
	// and listens on its ports (standin.go); nil: nothing runs.
	standIn program.Main
	// exitCode, for a steered container, is the code it exits with at
	// once (annotations.UnknownProgram "exit CODE").
	exitCode *int32
}

// launch starts the container's main process (or its steered stand-in)
// and publishes the container's live state for exec, attach and logs.
func (w *Worker) launch(pod *corev1.Pod, c *ctr, l *launchSpec, id string, now time.Time) error {
	var prevLog *ctrlog.Log
	if prev := c.live.Load(); prev != nil {
		prevLog = prev.Proc.Log
	}
	return w.launchRun(pod, c, l, id, now, prevLog)
}

// launchRun is launch with the log kubectl logs --previous shows; now is
// when the run started, from which a steered exit and the probes count.
func (w *Worker) launchRun(pod *corev1.Pod, c *ctr, l *launchSpec, id string, now time.Time, prevLog *ctrlog.Log) error {
	live := &process.Live{ID: id, Sys: l.sys, Env: l.spec.Env, Dir: l.spec.Dir, StdinOnce: c.spec.StdinOnce, Steered: l.steered, PrevLog: prevLog}
	c.exitAt = time.Time{}
	if l.steered {
		live.Proc = process.Idle(w.clock)
		c.exitAt, c.exitCode = exitPlan(pod, c, now)
		if l.exitCode != nil {
			c.exitAt, c.exitCode = now, *l.exitCode
		}
		if l.standIn != nil {
			argv := l.spec.Argv
			if len(argv) == 0 {
				argv = []string{"winkube-stand-in"} // the image's command is unknown
			}
			proc, err := w.startProcess(c, l.sys, process.Spec{Argv: argv, Env: l.spec.Env, Dir: l.spec.Dir, Main: l.standIn, LogFile: w.logFile(pod, c, id)})
			if err != nil {
				return err
			}
			live.Proc, live.StandIn = proc, true
		}
		if l.why != "" && !c.toldWhy {
			c.toldWhy = true
			w.node.Recorder.Eventf(containerRef(pod, c), corev1.EventTypeNormal, "Emulated", "%s", l.why)
		}
	} else {
		spec := l.spec
		spec.LogFile = w.logFile(pod, c, id)
		proc, err := w.startProcess(c, l.sys, spec)
		if err != nil {
			return w.notFoundError(l.spec.Argv[0])
		}
		live.Proc = proc
	}
	c.live.Store(live)
	c.probes = newProbeStates(&c.spec, now)
	return nil
}

// notFoundError is the runtime's failure to start a program the image
// does not have: runc's words under containerd, HCS's on Windows.
func (w *Worker) notFoundError(name string) error {
	if w.node.Host.Runtime().OS == "windows" {
		return fmt.Errorf("failed to create containerd task: failed to create shim task: hcs::System::CreateProcess: The system cannot find the file specified.: unknown")
	}
	return fmt.Errorf("failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: exec: %q: executable file not found in $PATH: unknown", name)
}

// startProcess starts the container's main process in its OS; its end
// queues the worker, as the kubelet's PLEG notices an exit.
func (w *Worker) startProcess(c *ctr, sys *program.Sys, spec process.Spec) (*process.Process, error) {
	return process.Start(process.Config{
		Ctx: w.node.RunCtx, Clock: w.clock, Programs: w.node.Programs,
		TTY: c.spec.TTY, Stdin: c.spec.Stdin,
		Ended: func() { w.node.Queue(w) }, Dropped: w.fs.DropAPIVolumes,
	}, sys, spec)
}

// hasExited reports whether the container's process has ended by itself.
func (c *ctr) hasExited(now time.Time) bool {
	if live := c.live.Load(); live != nil && live.Proc != nil {
		if _, _, done := live.Proc.Exited(); done {
			return true
		}
	}
	return !c.exitAt.IsZero() && !now.Before(c.exitAt)
}

// exitNow records the end of the container's process: the program's own
// status and time, or the steered exit.
func (w *Worker) exitNow(pod *corev1.Pod, c *ctr, now time.Time) {
	code, at := c.exitCode, now
	if live := c.live.Load(); live != nil && live.Proc != nil {
		if status, ended, done := live.Proc.Exited(); done {
			code, at = int32(status), ended
		}
	}
	w.exit(pod, c, code, at)
}

// stopProcess ends the container's process, if it still runs.
func (c *ctr) stopProcess(now time.Time) {
	if live := c.live.Load(); live != nil && live.Proc != nil {
		live.Proc.Kill(now)
	}
}

// terminationMessage is what the kubelet reads back when a container
// ends (process.Live.TerminationMessage).
func terminationMessage(c *ctr, code int32) string {
	live := c.live.Load()
	if live == nil {
		return ""
	}
	return live.TerminationMessage(&c.spec, code)
}

// hookTimeout bounds an exec hook; the kubelet bounds it by the grace
// period, which the emulation keeps for the stop itself.
const hookTimeout = 30 * time.Second

// postStart runs the container's postStart exec hook. A hook that fails
// kills the container, as the kubelet does, with its event.
func (w *Worker) postStart(pod *corev1.Pod, c *ctr, now time.Time) {
	h := c.spec.Lifecycle
	if h == nil || h.PostStart == nil {
		return
	}
	var msg string
	switch {
	case h.PostStart.Exec != nil:
		out, code, err := w.runIn(c, h.PostStart.Exec.Command, hookTimeout)
		if err == nil && code == 0 {
			return
		}
		msg = execFailure(h.PostStart.Exec.Command, out, code, err)
	case h.PostStart.HTTPGet != nil:
		err := w.httpHook(pod, c, h.PostStart.HTTPGet)
		if err == nil {
			return
		}
		msg = err.Error()
	default:
		return
	}
	w.node.Recorder.Eventf(containerRef(pod, c), corev1.EventTypeWarning, "FailedPostStartHook",
		"PostStartHook failed: %s", msg)
	w.exit(pod, c, 137, now)
	w.scheduleRestart(pod, c, now)
}

// preStop runs the container's preStop exec hook before it is stopped.
func (w *Worker) preStop(pod *corev1.Pod, c *ctr) {
	h := c.spec.Lifecycle
	if h == nil || h.PreStop == nil {
		return
	}
	var msg string
	switch {
	case h.PreStop.Exec != nil:
		out, code, err := w.runIn(c, h.PreStop.Exec.Command, hookTimeout)
		if err == nil && code == 0 {
			return
		}
		msg = execFailure(h.PreStop.Exec.Command, out, code, err)
	case h.PreStop.HTTPGet != nil:
		err := w.httpHook(pod, c, h.PreStop.HTTPGet)
		if err == nil {
			return
		}
		msg = err.Error()
	default:
		return
	}
	w.node.Recorder.Eventf(containerRef(pod, c), corev1.EventTypeWarning, "FailedPreStopHook",
		"PreStopHook failed: %s", msg)
}

// runIn runs a command in a running container, as exec probes and hooks
// do, and returns its combined output (process.Live.Run).
func (w *Worker) runIn(c *ctr, cmd []string, timeout time.Duration) (string, int, error) {
	live := c.live.Load()
	if live == nil {
		return "", 0, nil
	}
	return live.Run(w.node.RunCtx, cmd, timeout)
}

func execFailure(cmd []string, out string, code int, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("command '%s' exited with %d: %s", strings.Join(cmd, " "), code, out)
}
