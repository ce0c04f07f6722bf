// The pod status the worker writes to the API server, as the kubelet's
// status manager writes it: once per change, patched against what was
// last written, retried after a failure.

package podstatus

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/winkube/winkube/pkg/apis/annotations"
)

// RetryPeriod is how soon a failed status write is tried again (the
// status manager's syncPeriod).
const RetryPeriod = 10 * time.Second

// The API call whose trouble the writer reports (Config.Succeeded and
// Config.Failed).
const OpPodStatus = "update pod status"

// Config is what a pod's status writer uses.
type Config struct {
	// Client writes the status; Clock times the retries.
	Client kubernetes.Interface
	Clock  clock.Clock
	// Pod is the latest version of the pod.
	Pod func() *corev1.Pod
	// ReportErr reports an error the agent cannot act on; Succeeded and
	// Failed record a status write that worked or failed.
	ReportErr func(err error)
	Succeeded func(op string)
	Failed    func(op string, err error)
}

// Writer writes one pod's status as the kubelet's status manager does.
// Only Observe and Shown are called outside the pod worker's steps.
type Writer struct {
	cfg Config
	// written is the last status this writer wrote, server what the API
	// returned for it (the base of the next patch), and unwritten a
	// status whose write failed and is to be tried again.
	written *corev1.PodStatus
	// shown is written, for readers outside the steps (logs): the
	// kubelet answers from its own status, not from a watch that lags.
	shown     atomic.Pointer[corev1.PodStatus]
	server    *corev1.PodStatus
	unwritten *corev1.PodStatus
	// annotation is the Windows resources annotation still to be written
	// (it rides on the next status patch); annotated once it is.
	annotation string
	annotated  bool

	mu sync.Mutex
	// latestRV is the resourceVersion of the latest pod Observe saw.
	latestRV string
	// wroteRV and wroteStatus are the resourceVersion and status of the
	// last write's answer; caughtUp is set once the watch brought that
	// version, drifted once a later version's status differs (guarded by
	// mu; Observe).
	wroteRV     string
	wroteStatus *corev1.PodStatus // the same as server
	caughtUp    bool
	drifted     bool
}

// NewWriter makes the status writer of a pod.
func NewWriter(cfg Config) *Writer { return &Writer{cfg: cfg} }

// Observe records a version of the pod the watch brought. Once the watch
// has brought back the writer's own last write, a later version whose
// status differs from it was changed by someone else (the node lifecycle
// controller marks pods not Ready when their node misses its lease): the
// status is then written again, as the kubelet's status manager
// reconciles a status it finds changed.
func (w *Writer) Observe(pod *corev1.Pod) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.latestRV = pod.ResourceVersion
	switch {
	case w.wroteRV == "":
	case pod.ResourceVersion == w.wroteRV:
		w.caughtUp = true
	case w.caughtUp && !sameOnTheWire(&pod.Status, w.wroteStatus):
		w.drifted = true
	}
}

// noteWritten records the resourceVersion the API answered a status write
// with, and the status it holds since (server), for Observe.
func (w *Writer) noteWritten(rv string, server *corev1.PodStatus) {
	w.mu.Lock()
	defer w.mu.Unlock()
	// The watch may have brought the write before its answer came.
	w.wroteRV, w.wroteStatus, w.drifted = rv, server, false
	w.caughtUp = w.latestRV == rv
}

// statusDrifted reports whether someone else changed the status since the
// writer last wrote it.
func (w *Writer) statusDrifted() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.drifted
}

// Written is the status last written, nil before the first write.
func (w *Writer) Written() *corev1.PodStatus { return w.written }

// Shown is the status last written, for readers outside the steps.
func (w *Writer) Shown() *corev1.PodStatus { return w.shown.Load() }

// Unwritten reports whether a write failed and waits to be tried again.
func (w *Writer) Unwritten() bool { return w.unwritten != nil }

// Retry is when a failed status write is tried again: the status
// manager's sync period (zero: none failed).
func (w *Writer) Retry() time.Time {
	if w.unwritten == nil {
		return time.Time{}
	}
	return w.cfg.Clock.Now().Add(RetryPeriod)
}

// RetryUnwritten writes a terminal pod's status again after a failure.
func (w *Writer) RetryUnwritten(ctx context.Context) time.Time {
	if w.unwritten != nil {
		w.Put(ctx, *w.unwritten)
	}
	return w.Retry()
}

// Annotating reports whether the Windows resources annotation is written
// or waits for the next write.
func (w *Writer) Annotating() bool { return w.annotated || w.annotation != "" }

// Annotate sets the Windows resources annotation, which goes out with the
// next status patch.
func (w *Writer) Annotate(value string) { w.annotation = value }

// SetAnnotated records whether the pod carries the annotation already (a
// pod adopted after a restart of the agent).
func (w *Writer) SetAnnotated(done bool) { w.annotated = done }

// IsTerminalPhase reports whether a pod in phase p is done for good.
func IsTerminalPhase(p corev1.PodPhase) bool {
	return p == corev1.PodSucceeded || p == corev1.PodFailed
}

// Put writes st unless it equals what was last written. One write is
// one request: a strategic merge patch of the status subresource from what
// the API returned for the previous write to st, carrying the pod's UID as
// a precondition (as the kubelet's status manager does) and the pending
// annotation, so it neither needs the latest resourceVersion nor a read
// before it. The status strategy keeps annotation changes made through
// pods/status.
func (w *Writer) Put(ctx context.Context, st corev1.PodStatus) {
	drifted := w.statusDrifted()
	if w.written != nil && w.annotation == "" && !drifted && equality.Semantic.DeepEqual(*w.written, st) {
		return
	}
	pod := w.cfg.Pod()
	base := w.server
	if base == nil || drifted {
		base = &pod.Status // what the other writer left
	}
	patch, err := statusPatch(pod.UID, othersFrom(*base, st), st, w.annotation)
	if err != nil {
		w.cfg.ReportErr(err)
		return
	}
	updated, err := w.cfg.Client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name,
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
		w.cfg.Succeeded(OpPodStatus)
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err) || ctx.Err() != nil:
		// Gone, or a new pod of the same name (the UID precondition):
		// nothing left to write for this one.
		w.unwritten = nil
	default:
		w.unwritten = st.DeepCopy()
		w.cfg.Failed(OpPodStatus, err)
	}
}

// kubeletOwned are the condition types the kubelet writes (upstream's
// kubetypes.PodConditionsByKubelet with PodReadyToStartContainers); the
// others, such as readiness gates and DisruptionTarget, belong to whoever
// set them.
var kubeletOwned = map[corev1.PodConditionType]bool{
	corev1.PodScheduled: true, corev1.PodReady: true, corev1.PodInitialized: true,
	corev1.ContainersReady: true, corev1.PodReadyToStartContainers: true,
	corev1.PodResizeInProgress: true, corev1.PodResizePending: true,
}

// othersFrom is base with the conditions the kubelet does not own taken
// from st, so that a patch from it to st leaves them out. st carries them
// as the informer last showed them, which may be older than what their
// owner has written since: the status manager's patch, too, is computed
// against the cached pod's own conditions and so never writes another
// owner's conditions back (mergePodStatus, PatchPodStatus).
func othersFrom(base, st corev1.PodStatus) corev1.PodStatus {
	var conds []corev1.PodCondition
	for _, c := range base.Conditions {
		if kubeletOwned[c.Type] {
			conds = append(conds, c)
		}
	}
	for _, c := range st.Conditions {
		if !kubeletOwned[c.Type] {
			conds = append(conds, c)
		}
	}
	base.Conditions = conds
	return base
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
