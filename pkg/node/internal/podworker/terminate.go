package podworker

import (
	"context"
	"slices"
	"time"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/node/internal/podstatus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// terminate stops the pod after its deletion was requested: Killing events,
// the grace period the runtime really grants (LIM-14), a final status, and
// the final delete with grace 0 that lets the API server remove the pod.
// It returns when to look again: the end of the grace period while the
// containers stop, a retry after a failed delete, else zero.
func (w *Worker) terminate(ctx context.Context, pod *corev1.Pod) time.Time {
	if !w.terminal.Load() {
		if !w.stopContainers(pod) {
			return w.pauseUntil
		}
		w.writeStatus(ctx, w.latest())
	}
	if m := w.node.Network(); m != nil {
		m.Release(string(pod.UID))
	}
	// The kubelet unmounts the volumes before it lets the pod go,
	// looking again at the pod worker's volume poll.
	if td := w.node.Unmount; td != nil && !td(ctx, pod.UID) {
		return w.clock.Now().Add(volumePoll)
	}
	opts := metav1.DeleteOptions{
		GracePeriodSeconds: ptr.To[int64](0),
		Preconditions:      &metav1.Preconditions{UID: &pod.UID},
	}
	err := w.node.Client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, opts)
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) && ctx.Err() == nil {
		w.node.Failed(OpPodDelete, err)
		return w.clock.Now().Add(podstatus.RetryPeriod)
	}
	if err == nil {
		w.node.Succeeded(OpPodDelete)
	}
	w.finished = true
	return time.Time{}
}

// stopContainers sends every running container the stop signal and lets
// it stop as the program would: a prompt exit, or, when it ignores the
// signal, the whole grace period before the runtime kills it. Before the
// signal come the preStop hooks; a sleep hook holds the signal back for
// its seconds, cut at the grace period (the kubelet runs preStop hooks
// with the grace period as their timeout and stops the container with
// what is left, kuberuntime_container.go killContainer). It reports
// whether they have stopped; until then the pod is paused (pausePreStop,
// pauseStop) and the step that ends the wait calls it again.
func (w *Worker) stopContainers(pod *corev1.Pod) bool {
	var running []*ctr
	for _, c := range w.containers() {
		if c.status.State.Running != nil {
			running = append(running, c)
		}
	}
	if len(running) == 0 {
		w.markNeverStarted()
		return true
	}
	grace := time.Duration(w.node.Host.GracePeriod(gracePeriod(pod))) * time.Second
	slept := preStopSleep(running, grace)
	switch w.pauseKey {
	case pauseStop:
	case pausePreStop:
		if !w.wait(pausePreStop, slept) {
			return false
		}
		w.signalStop(running)
	default:
		for _, c := range stopOrder(running) {
			w.preStop(pod, c)
			w.node.Recorder.Eventf(containerRef(pod, c), corev1.EventTypeNormal, "Killing", "Stopping container %s", c.spec.Name)
		}
		if !w.wait(pausePreStop, slept) {
			return false
		}
		w.signalStop(running)
	}
	wait := gracefulStopTime
	code := int32(0)
	if ignores, _ := annotations.IgnoresSIGTERM(pod.Annotations); ignores {
		wait = max(grace-slept, minimumGracePeriod)
		code = w.node.Host.KilledExitCode()
	}
	if !w.wait(pauseStop, wait) {
		return false
	}
	now := w.clock.Now()
	for _, c := range running {
		w.exit(pod, c, code, now)
	}
	w.markNeverStarted()
	return true
}

// volumePoll is how often a deleted pod looks whether its volumes are
// unmounted (the volume manager's podAttachAndMountRetryInterval).
const volumePoll = 300 * time.Millisecond

// minimumGracePeriod is what the kubelet leaves a container after a
// preStop hook that used up the grace period
// (minimumGracePeriodInSeconds).
const minimumGracePeriod = 2 * time.Second

// signalStop sends the running containers' programs the stop signal.
func (w *Worker) signalStop(running []*ctr) {
	for _, c := range stopOrder(running) {
		if live := c.live.Load(); live != nil {
			live.Proc.Stop(w.clock.Now())
		}
	}
}

// preStopSleep is how long the containers' sleep hooks hold the stop
// signal back: the longest, at most the grace period. The kubelet stops
// containers in parallel, each after its own hook; here the pod's
// containers are signalled together after the longest, so a container
// without a sleep hook beside one with it stops late by that much.
func preStopSleep(running []*ctr, grace time.Duration) time.Duration {
	var d time.Duration
	for _, c := range running {
		if h := c.spec.Lifecycle; h != nil && h.PreStop != nil && h.PreStop.Sleep != nil {
			d = max(d, time.Duration(h.PreStop.Sleep.Seconds)*time.Second)
		}
	}
	return min(d, grace)
}

// stopping reports whether the pod waits for its containers to stop.
func (w *Worker) stopping() bool { return w.pauseKey == pauseStop || w.pauseKey == pausePreStop }

// markNeverStarted leaves containers that never ran waiting with the reason
// the kubelet shows once the pod is being torn down.
func (w *Worker) markNeverStarted() {
	for _, c := range append(append([]*ctr(nil), w.initCtrs...), w.ctrs...) {
		if c.status.State.Waiting != nil && c.status.LastTerminationState.Terminated == nil {
			c.status.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 137, Reason: "ContainerStatusUnknown", Message: "The container could not be located when the pod was terminated",
			}}
		}
	}
}

// gracePeriod is the grace period the deletion asked for.
func gracePeriod(pod *corev1.Pod) int64 {
	if pod.DeletionGracePeriodSeconds != nil {
		return *pod.DeletionGracePeriodSeconds
	}
	if pod.Spec.TerminationGracePeriodSeconds != nil {
		return *pod.Spec.TerminationGracePeriodSeconds
	}
	return defaultGracePeriod
}

// stopOrder is the order the kubelet stops a pod's containers in: the
// regular containers first (their preStop hooks may still use a sidecar,
// such as a proxy), then the sidecars (restartable init containers) in
// reverse order of their start.
func stopOrder(running []*ctr) []*ctr {
	var regular, sidecars []*ctr
	for _, c := range running {
		if c.init && c.spec.RestartPolicy != nil {
			sidecars = append(sidecars, c)
		} else {
			regular = append(regular, c)
		}
	}
	slices.Reverse(sidecars)
	return append(regular, sidecars...)
}
