package podworker

import (
	"encoding/json"
	"runtime"
	"slices"
	"sync"
	"time"
	"weak"

	"github.com/winkube/winkube/pkg/node/internal/backoff"
	"github.com/winkube/winkube/pkg/node/internal/podfs"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// In-place pod resize, as the kubelet's allocation manager and status
// manager do it (pkg/kubelet/allocation, pkg/kubelet/status): a change of
// spec.containers[].resources through pods/resize is checked against the
// node, allocated (the ctr's spec becomes the allocation), reported as
// PodResizeInProgress until the runtime has applied it, then shown in the
// container statuses. A resize that does not fit stays PodResizePending.

// Resize event reasons and the message of the Windows kubelet
// (pkg/kubelet/events/event.go, allocation/features_windows.go).
const (
	EventResizeStarted    = "ResizeStarted"
	EventResizeCompleted  = "ResizeCompleted"
	EventResizeDeferred   = "ResizeDeferred"
	EventResizeInfeasible = "ResizeInfeasible"
	messageResizeWindows  = "In-place pod resize is not supported on Windows"
)

// resizeState is a pod's resize bookkeeping: the resize conditions the
// status manager caches, and what the runtime still runs for containers
// whose allocation changed (actual, by container name).
type resizeState struct {
	pending    *corev1.PodCondition
	inProgress *corev1.PodCondition
	// actuateAt is when the runtime has applied the last allocation (the
	// PLEG relist that sees it).
	actuateAt time.Time
	actual    map[string]actualResources
}

// actualResources is what the runtime applied to one container instance.
type actualResources struct {
	containerID string
	resources   corev1.ResourceRequirements
}

// resizeStates holds the state of workers that have seen a resize. It is a
// side table, keyed weakly, so that a worker that never resizes carries
// nothing and a dropped worker's entry goes with it.
var resizeStates sync.Map // weak.Pointer[Worker] → *resizeState

// peekResize is the worker's resize state, nil when it never had one.
func (w *Worker) peekResize() *resizeState {
	if v, ok := resizeStates.Load(weak.Make(w)); ok {
		return v.(*resizeState)
	}
	return nil
}

// resizeState is the worker's resize state, created on first use.
func (w *Worker) resizeState() *resizeState {
	key := weak.Make(w)
	v, loaded := resizeStates.LoadOrStore(key, &resizeState{actual: map[string]actualResources{}})
	if !loaded {
		runtime.AddCleanup(w, func(k weak.Pointer[Worker]) { resizeStates.Delete(k) }, key)
	}
	return v.(*resizeState)
}

// applyResize acts on the pod's desired resources: it finishes a resize the
// runtime has applied, then allocates a new one when the spec differs from
// the allocation and fits the node, or marks it pending. It reports
// whether the pod status changed. Called once per sync of an admitted,
// non-terminal pod, before the containers are synced.
func (w *Worker) applyResize(pod *corev1.Pod, now time.Time) (changed bool) {
	st := w.peekResize()
	if st != nil {
		changed = w.actuate(pod, st, now)
	}
	if !w.resizeWanted(pod) {
		if st != nil && st.pending != nil {
			st.pending = nil // the resize was reverted
			changed = true
		}
		return changed
	}
	st = w.resizeState()
	if reason, msg := w.resizeFit(pod); reason != "" {
		return w.setPending(pod, st, reason, msg, now) || changed
	}
	w.allocate(pod, st, now)
	return true
}

// resizeWanted reports whether some container's desired resources differ
// from its allocation.
func (w *Worker) resizeWanted(pod *corev1.Pod) bool {
	for _, c := range w.allCtrs() {
		if d := desiredContainer(pod, c); d != nil && !equality.Semantic.DeepEqual(d.Resources, c.spec.Resources) {
			return true
		}
	}
	return false
}

func (w *Worker) allCtrs() []*ctr {
	return append(append([]*ctr(nil), w.initCtrs...), w.ctrs...)
}

// desiredContainer is the pod spec's container of c's name and kind.
func desiredContainer(pod *corev1.Pod, c *ctr) *corev1.Container {
	list := pod.Spec.Containers
	if c.init {
		list = pod.Spec.InitContainers
	}
	for i := range list {
		if list[i].Name == c.spec.Name {
			return &list[i]
		}
	}
	return nil
}

// resizeFit is the kubelet's admission of a resize: Windows refuses every
// resize; elsewhere the desired pod must fit the node's allocatable beside
// the other pods. Any reason but Infeasible makes the resize Deferred.
func (w *Worker) resizeFit(pod *corev1.Pod) (reason, message string) {
	if w.node.Host.OS() == "windows" {
		return corev1.PodReasonInfeasible, messageResizeWindows
	}
	return w.node.ResizeFit(w, pod)
}

// setPending records a resize that cannot be allocated now; the event is
// sent when the reason or the generation changes, as the status manager's
// SetPodResizePendingCondition reports.
func (w *Worker) setPending(pod *corev1.Pod, st *resizeState, reason, msg string, now time.Time) bool {
	old := st.pending
	if old != nil && old.Reason == reason && old.Message == msg && old.ObservedGeneration == pod.Generation {
		return false
	}
	st.pending = resizeCondition(corev1.PodResizePending, old, reason, msg, pod.Generation, now)
	if old == nil || old.Reason != reason || old.ObservedGeneration != pod.Generation {
		event := EventResizeDeferred
		if reason == corev1.PodReasonInfeasible {
			event = EventResizeInfeasible
		}
		w.node.Recorder.Eventf(pod, corev1.EventTypeWarning, event, "%s", resizeMessage(pod, "Pod resize "+reason, msg))
	}
	return true
}

// allocate makes the desired resources the allocation; running containers
// keep what the runtime gave them until it applies the new values.
func (w *Worker) allocate(pod *corev1.Pod, st *resizeState, now time.Time) {
	for _, c := range w.allCtrs() {
		d := desiredContainer(pod, c)
		if d == nil {
			continue
		}
		if _, ok := st.actual[c.spec.Name]; !ok && c.status.State.Running != nil {
			st.actual[c.spec.Name] = actualResources{containerID: c.status.ContainerID, resources: *c.spec.Resources.DeepCopy()}
		}
		c.spec.Resources = *d.Resources.DeepCopy()
	}
	st.pending = nil
	st.inProgress = resizeCondition(corev1.PodResizeInProgress, nil, "", "", pod.Generation, now)
	st.actuateAt = now.Add(backoff.PLEGRelist)
	w.node.Recorder.Eventf(pod, corev1.EventTypeNormal, EventResizeStarted, "%s", resizeMessage(w.allocatedPod(pod), "Pod resize started", ""))
}

// actuate applies the allocation to the running containers once the
// runtime has had time to, except where the resize policy asks for a
// restart (the container then gets the new values when it starts again);
// with nothing left to apply the resize is complete.
func (w *Worker) actuate(pod *corev1.Pod, st *resizeState, now time.Time) bool {
	if st.inProgress == nil || now.Before(st.actuateAt) {
		return false
	}
	for _, c := range w.allCtrs() {
		a, ok := st.actual[c.spec.Name]
		if !ok {
			continue
		}
		if c.status.State.Running == nil || c.status.ContainerID != a.containerID || !needsRestart(c, a.resources) {
			delete(st.actual, c.spec.Name)
			if live := c.live.Load(); live != nil && live.Sys != nil {
				podfs.RefreshCgroups(live.Sys.FS, pod, &c.spec, w.node.KubeletNode)
			}
		}
	}
	if len(st.actual) > 0 {
		return false
	}
	gen := st.inProgress.ObservedGeneration
	st.inProgress = nil
	w.node.Recorder.Eventf(pod, corev1.EventTypeNormal, EventResizeCompleted, "%s", resizeMessage(w.allocatedPod(pod), "Pod resize completed", "", gen))
	return true
}

// resizeRestartDue reports whether c runs with resources the allocation
// changed for a resource whose resize policy is RestartContainer: the
// kubelet then kills the container and starts it again with the new
// values (restart count + 1).
func (w *Worker) resizeRestartDue(c *ctr) bool {
	st := w.peekResize()
	if st == nil || c.status.State.Running == nil {
		return false
	}
	a, ok := st.actual[c.spec.Name]
	return ok && a.containerID == c.status.ContainerID && needsRestart(c, a.resources)
}

// resizeWake is when the worker must look at the pod again for a resize:
// when the runtime has applied an allocation, or the kubelet's retry of a
// deferred resize (allocation_manager.go retryDelay). Zero: never.
func (w *Worker) resizeWake() time.Time {
	st := w.peekResize()
	switch {
	case st == nil:
		return time.Time{}
	case st.inProgress != nil:
		return st.actuateAt
	case st.pending != nil && st.pending.Reason == corev1.PodReasonDeferred:
		return w.clock.Now().Add(resizeRetryDelay)
	}
	return time.Time{}
}

// resizeRetryDelay is the allocation manager's retry period for deferred
// resizes.
const resizeRetryDelay = 3 * time.Minute

// needsRestart reports whether going from old to c's allocation changes a
// resource whose resize policy is RestartContainer.
func needsRestart(c *ctr, old corev1.ResourceRequirements) bool {
	for _, p := range c.spec.ResizePolicy {
		if p.RestartPolicy != corev1.RestartContainer {
			continue
		}
		n := c.spec.Resources
		if !n.Requests[p.ResourceName].Equal(old.Requests[p.ResourceName]) || !n.Limits[p.ResourceName].Equal(old.Limits[p.ResourceName]) {
			return true
		}
	}
	return false
}

// resizeCondition builds a resize condition the way the status manager's
// updatedPodResizeCondition does: the transition time moves when the
// reason changes.
func resizeCondition(t corev1.PodConditionType, old *corev1.PodCondition, reason, msg string, gen int64, now time.Time) *corev1.PodCondition {
	ts := metav1.NewTime(now).Rfc3339Copy()
	c := &corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: msg,
		ObservedGeneration: gen, LastProbeTime: ts, LastTransitionTime: ts}
	if old != nil && old.Reason == reason {
		c.LastTransitionTime = old.LastTransitionTime
	}
	return c
}

// allocatedPod is pod with every container's resources as allocated.
func (w *Worker) allocatedPod(pod *corev1.Pod) *corev1.Pod {
	// Callers only read it, so it shares all but the container lists
	// with pod: a deep copy on every status render cost more than the
	// rest of the render.
	out := *pod
	out.Spec.Containers = slices.Clone(pod.Spec.Containers)
	out.Spec.InitContainers = slices.Clone(pod.Spec.InitContainers)
	for _, c := range w.allCtrs() {
		if d := desiredContainer(&out, c); d != nil {
			d.Resources = c.spec.Resources
		}
	}
	return &out
}

// resizeMessage words a resize event as pkg/kubelet/events/resize.go does:
// a prefix, then the pod's resources per container, the generation and an
// error as JSON. gen defaults to the pod's generation.
func resizeMessage(pod *corev1.Pod, prefix, errMsg string, gen ...int64) string {
	type alloc struct {
		Name      string                      `json:"name"`
		Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	}
	summary := struct {
		InitContainers []alloc `json:"initContainers,omitempty"`
		Containers     []alloc `json:"containers,omitempty"`
		Generation     int64   `json:"generation"`
		Error          string  `json:"error,omitempty"`
	}{Generation: pod.Generation, Error: errMsg}
	if len(gen) > 0 {
		summary.Generation = gen[0]
	}
	for _, c := range pod.Spec.InitContainers {
		summary.InitContainers = append(summary.InitContainers, alloc{c.Name, c.Resources})
	}
	for _, c := range pod.Spec.Containers {
		summary.Containers = append(summary.Containers, alloc{c.Name, c.Resources})
	}
	b, err := json.Marshal(summary)
	if err != nil {
		return prefix
	}
	return prefix + ": " + string(b)
}
