// The pod status the worker writes to the API server, as the kubelet's
// status manager writes it: once per change, patched against what was
// last written, retried after a failure.

package podworker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/winkube/winkube/pkg/apis/annotations"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// statusRetry is when a failed status write is tried again: the status
// manager's sync period.
func (w *Worker) statusRetry() time.Time {
	if w.unwritten == nil {
		return time.Time{}
	}
	return w.clock.Now().Add(statusRetryPeriod)
}

// retryUnwritten writes a terminal pod's status again after a failure.
func (w *Worker) retryUnwritten(ctx context.Context) time.Time {
	if w.unwritten != nil {
		w.putStatus(ctx, *w.unwritten)
	}
	return w.statusRetry()
}

// writeStatus posts the pod status when it changed since the last post.
func (w *Worker) writeStatus(ctx context.Context, pod *corev1.Pod) {
	if w.terminal.Load() && w.unwritten != nil {
		return // the final status is written again by retryUnwritten
	}
	if w.terminal.Load() && w.written != nil && w.written.Phase == corev1.PodFailed && w.written.Reason != "" {
		return // rejected: reject already wrote the final status
	}
	st := w.render(pod)
	if isTerminalPhase(st.Phase) {
		w.terminal.Store(true)
		if m := w.node.Network(); m != nil {
			m.Release(string(pod.UID)) // the sandbox is gone
		}
	}
	w.putStatus(ctx, st)
}

func isTerminalPhase(p corev1.PodPhase) bool {
	return p == corev1.PodSucceeded || p == corev1.PodFailed
}

// putStatus writes st unless it equals what was last written. One write is
// one request: a strategic merge patch of the status subresource from what
// the API returned for the previous write to st, carrying the pod's UID as
// a precondition (as the kubelet's status manager does) and the pending
// annotation, so it neither needs the latest resourceVersion nor a read
// before it. The status strategy keeps annotation changes made through
// pods/status.
func (w *Worker) putStatus(ctx context.Context, st corev1.PodStatus) {
	drifted := w.statusDrifted()
	if w.written != nil && w.annotation == "" && !drifted && equality.Semantic.DeepEqual(*w.written, st) {
		return
	}
	pod := w.latest()
	base := w.server
	if base == nil || drifted {
		base = &pod.Status // what the other writer left
	}
	patch, err := statusPatch(pod.UID, *base, st, w.annotation)
	if err != nil {
		w.node.ReportErr(err)
		return
	}
	updated, err := w.node.Client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name,
		types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	switch {
	case err == nil:
		// Keep the returned status alone, not the whole pod it is part
		// of, and only when it differs from what was written: nearly
		// always the server keeps the status as written, and a second
		// copy per pod is memory a large node feels.
		server := updated.Status
		w.written, w.server, w.unwritten = st.DeepCopy(), &server, nil
		if sameOnTheWire(&server, w.written) {
			w.server = w.written
		}
		w.noteWritten(updated.ResourceVersion, w.server)
		w.shown.Store(w.written)
		if w.annotation != "" {
			w.annotation, w.annotated = "", true
		}
		w.node.Succeeded(OpPodStatus)
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err) || ctx.Err() != nil:
		// Gone, or a new pod of the same name (the UID precondition):
		// nothing left to write for this one.
		w.unwritten = nil
	default:
		w.unwritten = st.DeepCopy()
		w.node.Failed(OpPodStatus, err)
	}
}

// sameOnTheWire reports whether two statuses read the same through the
// API, which keeps times in whole seconds: as bases of a patch they are
// the same.
func sameOnTheWire(a, b *corev1.PodStatus) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// statusPatch is the strategic merge patch from the status base to st,
// with uid as precondition and, when set, the Windows resources annotation.
func statusPatch(uid types.UID, base, st corev1.PodStatus, annotation string) ([]byte, error) {
	oldJSON, err := json.Marshal(corev1.Pod{Status: base})
	if err != nil {
		return nil, fmt.Errorf("encode pod status: %w", err)
	}
	newJSON, err := json.Marshal(corev1.Pod{Status: st})
	if err != nil {
		return nil, fmt.Errorf("encode pod status: %w", err)
	}
	diff, err := strategicpatch.CreateTwoWayMergePatch(oldJSON, newJSON, corev1.Pod{})
	if err != nil {
		return nil, fmt.Errorf("diff pod status: %w", err)
	}
	patch := map[string]any{}
	if err := json.Unmarshal(diff, &patch); err != nil {
		return nil, fmt.Errorf("decode pod status patch: %w", err)
	}
	meta := map[string]any{"uid": uid}
	if annotation != "" {
		meta["annotations"] = map[string]string{annotations.WindowsResources: annotation}
	}
	patch["metadata"] = meta
	out, err := json.Marshal(patch)
	if err != nil {
		return nil, fmt.Errorf("encode pod status patch: %w", err)
	}
	return out, nil
}
