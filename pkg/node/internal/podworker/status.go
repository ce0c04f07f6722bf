package podworker

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/node/internal/podstatus"
)

// writeStatus posts the pod status when it changed since the last post.
func (w *Worker) writeStatus(ctx context.Context, pod *corev1.Pod) {
	if w.terminal.Load() && w.status.Unwritten() {
		return // the final status is written again by RetryUnwritten
	}
	if written := w.status.Written(); w.terminal.Load() && written != nil && written.Phase == corev1.PodFailed && written.Reason != "" {
		return // rejected: reject already wrote the final status
	}
	st := w.render(pod)
	if podstatus.IsTerminalPhase(st.Phase) {
		w.terminal.Store(true)
		if m := w.node.Network(); m != nil {
			m.Release(string(pod.UID)) // the sandbox is gone
		}
		// The volume manager unmounts a terminated pod's volumes; this
		// starts it, and a deletion later waits for it (terminate).
		if w.node.Unmount != nil {
			w.node.Unmount(ctx, pod.UID)
		}
	}
	w.status.Put(ctx, st)
}

// render builds the pod status from the emulated containers.
func (w *Worker) render(pod *corev1.Pod) corev1.PodStatus {
	in := podstatus.Pod{
		HostIP: w.node.IP, StartTime: w.startTime, SandboxReady: w.sandboxReady,
		Init: views(w.initCtrs), Regular: views(w.ctrs), Ephemeral: views(w.ephCtrs),
		Written: w.status.Written(), ResizeConditions: w.resizeConditions,
	}
	switch {
	case w.ip.IsValid():
		in.PodIP = w.ip.String()
	case w.sandboxReady:
		in.PodIP = w.node.IP // host network
	}
	if w.deadlineHit {
		in.FailedReason, in.FailedMessage = reasonDeadlineExceeded, deadlineMessage
	}
	st := podstatus.Render(pod, in)
	w.setStatusResources(&st, pod, in)
	return st
}

// views are the containers as the status shows them.
func views(ctrs []*ctr) []podstatus.Container {
	var out []podstatus.Container
	for _, c := range ctrs {
		out = append(out, podstatus.Container{Spec: &c.spec, Status: &c.status})
	}
	return out
}

// setStatusResources fills resources and allocatedResources of the
// container statuses (one per ctr, same order) and of the pod.
func (w *Worker) setStatusResources(st *corev1.PodStatus, pod *corev1.Pod, in podstatus.Pod) {
	var actual podstatus.Actual
	if rs := w.peekResize(); rs != nil {
		actual = func(name, containerID string) (corev1.ResourceRequirements, bool) {
			a, ok := rs.actual[name]
			return a.resources, ok && a.containerID == containerID
		}
	}
	win := w.node.Host.OS() == "windows"
	podstatus.ContainerResources(st.InitContainerStatuses, in.Init, actual, win, w.node.CPUs)
	podstatus.ContainerResources(st.ContainerStatuses, in.Regular, actual, win, w.node.CPUs)
	podstatus.PodResources(st, w.allocatedPod(pod))
}

// resizeConditions are the pod's resize conditions, pending first, as the
// status manager lists them.
func (w *Worker) resizeConditions(terminal bool) []corev1.PodCondition {
	st := w.peekResize()
	if st == nil {
		return nil
	}
	if terminal {
		st.pending, st.inProgress = nil, nil
		return nil
	}
	var out []corev1.PodCondition
	for _, c := range []*corev1.PodCondition{st.pending, st.inProgress} {
		if c != nil {
			out = append(out, *c)
		}
	}
	return out
}
