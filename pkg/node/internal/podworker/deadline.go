package podworker

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The kubelet's active deadline handler words a pod that outlived
// spec.activeDeadlineSeconds this way, in the pod status and in a Normal
// event (pkg/kubelet/active_deadline.go).
const (
	reasonDeadlineExceeded = "DeadlineExceeded"
	deadlineMessage        = "Pod was active on the node longer than the specified deadline"
)

// activeDeadline is when the pod's activeDeadlineSeconds, counted from its
// status start time as the kubelet counts it, runs out; zero when it has
// none or has not started.
func (w *Worker) activeDeadline() time.Time {
	limit := w.latest().Spec.ActiveDeadlineSeconds
	if limit == nil || w.startTime == nil || w.deadlineHit {
		return time.Time{}
	}
	return w.startTime.Add(time.Duration(*limit) * time.Second)
}

func (w *Worker) pastDeadline(now time.Time) bool {
	d := w.activeDeadline()
	return !d.IsZero() && !now.Before(d)
}

// enforceDeadline stops the pod's containers and fails it; the next status
// write carries the reason. While the containers stop the pod is paused
// and the step after the wait comes back here, so the event goes out once.
func (w *Worker) enforceDeadline(pod *corev1.Pod) {
	if !w.stopping() {
		w.node.Recorder.Event(pod, corev1.EventTypeNormal, reasonDeadlineExceeded, deadlineMessage)
	}
	if !w.stopContainers(pod) {
		return
	}
	w.deadlineHit = true
}
