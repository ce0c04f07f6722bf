package podworker

import (
	"context"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	remotecommandserver "k8s.io/cri-streaming/pkg/streaming/remotecommand"

	"github.com/winkube/winkube/pkg/node/internal/ctrlog"
	"github.com/winkube/winkube/pkg/node/internal/process"
)

// podTarget runs exec, attach and port-forward against one pod's
// containers (kubeletapi.Pod).
type podTarget struct{ w *Worker }

// ExecInContainer runs cmd in the container's OS beside its main process.
func (t *podTarget) ExecInContainer(ctx context.Context, _ string, _ string, container string, cmd []string,
	in io.Reader, out, errOut io.WriteCloser, tty bool, resize <-chan remotecommandserver.TerminalSize, _ time.Duration) error {
	term := process.Terminal(ctx, tty, resize)
	live, err := t.w.running(container)
	if err != nil {
		return err
	}
	return live.Exec(ctx, cmd, in, out, errOut, term, t.w.node.Host.Runtime().OS == "windows")
}

// AttachContainer joins the main process's streams: its output from now
// on, and its stdin when the container keeps one open.
func (t *podTarget) AttachContainer(ctx context.Context, _ string, _ string, container string,
	in io.Reader, out, errOut io.WriteCloser, tty bool, resize <-chan remotecommandserver.TerminalSize) error {
	go process.DrainResize(ctx, resize)
	live, err := t.w.running(container)
	if err != nil {
		return err
	}
	return live.Attach(ctx, in, out)
}

// running is the live state of a running container, or the error the
// runtime gives for one that is not.
func (w *Worker) running(name string) (*process.Live, error) {
	for _, c := range w.containers() {
		if c.spec.Name != name {
			continue
		}
		live := c.live.Load()
		if live == nil || live.Sys == nil {
			return nil, fmt.Errorf("container %q is not running", name)
		}
		if _, _, done := live.Proc.Exited(); done {
			return nil, fmt.Errorf("failed to exec in container: container is in CONTAINER_EXITED state")
		}
		return live, nil
	}
	return nil, fmt.Errorf("container %s is not valid for pod %s", name, w.latest().Name)
}

// Status is the status the node last wrote for the pod.
func (t *podTarget) Status() *corev1.PodStatus { return t.w.status.Shown() }

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
			return live.PrevLog
		}
		return live.Proc.Log
	}
	return nil
}
