package podworker

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/node/internal/process"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
)

// restore adopts what the API already says about the pod: after an agent
// restart, running containers keep running and keep their IP.
func (w *Worker) restore(pod *corev1.Pod) {
	st := pod.Status
	if isTerminal(pod) {
		w.admitted.Store(st.Reason == "" || len(st.ContainerStatuses) > 0)
		w.terminal.Store(true)
		return
	}
	if st.PodIP == "" && len(st.ContainerStatuses) == 0 && len(st.InitContainerStatuses) == 0 {
		return
	}
	w.admitted.Store(true)
	w.startTime = st.StartTime
	if ip, err := netip.ParseAddr(st.PodIP); err == nil {
		w.ip = ip
		w.sandboxReady = true
	}
	if hasCondition(pod, corev1.PodReadyToStartContainers, corev1.ConditionTrue) {
		w.sandboxReady = true
	}
	w.status.SetAnnotated(pod.Annotations[annotations.WindowsResources] != "")
	restoreStatuses(w.initCtrs, st.InitContainerStatuses, pod)
	restoreStatuses(w.ctrs, st.ContainerStatuses, pod)
}

func restoreStatuses(ctrs []*ctr, statuses []corev1.ContainerStatus, pod *corev1.Pod) {
	for _, c := range ctrs {
		for _, s := range statuses {
			if s.Name != c.spec.Name {
				continue
			}
			c.status = *s.DeepCopy()
			if r := s.State.Running; r != nil {
				// The process of a container that ran before the agent
				// restarted is gone; the container keeps running, idle,
				// until the first sync runs its program again.
				c.live.Store(&process.Live{ID: s.ContainerID, Proc: process.Idle(clock.RealClock{})})
				c.readyAt = readyTime(c, r.StartedAt.Time)
				c.resume = true
			}
		}
	}
}

// resumeContainer runs again the program of a container that was Running
// when the node agent restarted (restore in podworker.go). On a real node
// the container's process outlives a kubelet restart; here it died with
// the agent, so the new agent starts it again under the same container ID.
// Nothing the API shows changes: the status keeps its ID, restart count,
// start time and readiness, and no Created or Started event is recorded,
// as a restarted kubelet records none for running containers; postStart
// hooks do not run again. If the program cannot run again (a ConfigMap
// deleted while the agent was down, say), the container keeps running
// idle and one Warning event says why: failing a container that was
// running would be the emulation's doing, not the cluster's.
func (w *Worker) resumeContainer(ctx context.Context, pod *corev1.Pod, c *ctr) {
	c.resume = false
	run := c.status.State.Running
	if run == nil {
		return
	}
	if err := w.rerun(ctx, pod, c, run.StartedAt.Time); err != nil {
		w.node.Recorder.Eventf(containerRef(pod, c), corev1.EventTypeWarning, "ResumeFailed",
			"winkube could not run container %s again after its node agent restarted, so it keeps running idle: %v", c.spec.Name, err)
	}
}

// rerun goes the way of startContainer without its status changes and
// events: the image (already on the machine, so no pull), the config
// checks, prepare, the runtime's create and start for the same ID, and the
// launch. A steered container's exit still comes at the time its
// annotations set from its original start.
func (w *Worker) rerun(ctx context.Context, pod *corev1.Pod, c *ctr, started time.Time) error {
	rt := w.node.Host.Runtime()
	// The runtime kept the image of a running container across the
	// restart; the node lists it and later starts find it present.
	pulled, err := w.node.Images.Kept(ctx, pod, c.spec.Image)
	if err != nil {
		return fmt.Errorf("image %s: %w", c.spec.Image, err)
	}
	if err := w.containerConfigErr(pod, c, pulled); err != nil {
		return err
	}
	l, err := w.prepare(ctx, pod, c, pulled)
	if err != nil {
		return err
	}
	id := strings.TrimPrefix(c.status.ContainerID, rt.IDPrefix())
	if err := rt.CreateContainer(pulled, id); err != nil {
		return err
	}
	if err := w.startInRuntime(pod, c, pulled, id, l); err != nil {
		return err
	}
	// The agent before this one told why a steered container runs idle.
	c.toldWhy = true
	// The previous run's log died with the old agent: none to show.
	if err := w.launchRun(pod, c, l, id, started, nil); err != nil {
		return err
	}
	keepProbeResults(c)
	return nil
}

// keepProbeResults carries what the probes last said across the restart:
// a started container is not probed for startup again (the kubelet's
// prober skips startup probes of started containers), and a declared
// readiness probe keeps the restored Ready until its own results say
// otherwise, so an agent restart does not take the pod out of its
// Services.
func keepProbeResults(c *ctr) {
	if p := c.probes.startup; p != nil && c.status.Started != nil && *c.status.Started {
		p.ok = true
	}
	if p := c.probes.readiness; p != nil {
		p.ok = c.status.Ready
	}
}

func isTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}
