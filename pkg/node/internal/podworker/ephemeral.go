package podworker

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// addEphemeral makes a container record for each ephemeral container the
// pod gained (kubectl debug adds them through the ephemeralcontainers
// subresource). It runs inside a step; exec reads the list under w.mu.
func (w *Worker) addEphemeral(pod *corev1.Pod) {
	for _, ec := range pod.Spec.EphemeralContainers {
		if w.hasEphemeral(ec.Name) {
			continue
		}
		c := newCtr(corev1.Container(ec.EphemeralContainerCommon), false)
		c.ephemeral = true
		c.status.State.Waiting.Reason = "ContainerCreating"
		w.mu.Lock()
		w.ephCtrs = append(w.ephCtrs, c)
		w.mu.Unlock()
	}
}

func (w *Worker) hasEphemeral(name string) bool {
	for _, c := range w.ephCtrs {
		if c.spec.Name == name {
			return true
		}
	}
	return false
}

// runEphemeral starts ephemeral containers once the pod runs; they are
// never restarted (their restartPolicy is Never whatever the pod's).
func (w *Worker) runEphemeral(ctx context.Context, pod *corev1.Pod, now time.Time) {
	for _, c := range w.ephCtrs {
		s := c.status.State
		due := !now.Before(c.retryAt)
		switch {
		case s.Running != nil && c.hasExited(now):
			w.exitNow(pod, c, now)
		case s.Waiting != nil && due:
			w.startContainer(ctx, pod, c)
		}
	}
}

// containers lists init, regular and ephemeral containers.
func (w *Worker) containers() []*ctr {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]*ctr, 0, len(w.initCtrs)+len(w.ctrs)+len(w.ephCtrs))
	out = append(append(append(out, w.initCtrs...), w.ctrs...), w.ephCtrs...)
	return out
}
