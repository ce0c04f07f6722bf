package node

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/node/internal/cri"
	"github.com/winkube/winkube/pkg/node/internal/vfs"
	"github.com/winkube/winkube/pkg/node/internal/vnet"
)

// Annotations that steer the emulated processes of a pod (see
// pkg/apis/annotations). Without AnnotationRunSeconds, containers of pods
// whose restartPolicy is not Always exit after defaultRunSeconds.
const (
	AnnotationRunSeconds    = annotations.RunSeconds
	AnnotationExitCode      = annotations.ExitCode
	AnnotationIgnoreSIGTERM = annotations.IgnoreSIGTERM
	AnnotationSandboxImage  = annotations.SandboxImage
)

// Emulation timing; the kubelet's own timings are in backoff.go.
const (
	defaultRunSeconds = 2.0
	initRunSeconds    = 1.0
	gracefulStopTime  = 150 * time.Millisecond
	// networkRetry is the kubelet's backOffOnTransientErrorPeriod: a pod
	// whose network is not ready is synced again after a second.
	networkRetry = time.Second
	// statusRetryPeriod is how soon a failed status write is tried again
	// (the status manager's syncPeriod).
	statusRetryPeriod  = 10 * time.Second
	defaultGracePeriod = 30
)

// podWorker is the state of one pod on one emulated node, like the
// kubelet's pod worker: admission, sandbox, init containers, containers,
// status, and termination on deletion. It owns no goroutine: the agent's
// pod queue (queue.go) hands it to one worker at a time, which calls step;
// step returns when the pod next needs a look. Only the fields marked
// otherwise are touched outside a step.
type podWorker struct {
	node *emuNode
	// clock is the worker's time source; tests pass a fake one to step
	// through back-offs and grace periods in virtual time.
	clock clock.Clock

	mu  sync.Mutex
	pod *corev1.Pod // latest version from the informer (guarded by mu)
	// removed is set when the pod left the API; a queued step then
	// does nothing.
	removed atomic.Bool
	// admitted and terminal are read by the node during admission.
	admitted atomic.Bool
	terminal atomic.Bool

	restored bool
	// finished marks a deleted pod whose final delete went through.
	finished bool
	// pauseKey and pauseUntil describe what the pod waits for in place
	// of a blocking sleep: an image pull or a container stop (pause).
	pauseKey   string
	pauseUntil time.Time
	// pauseSeen records that the current step reached the wait again.
	pauseSeen bool

	sandboxReady   bool
	sandboxRetryAt time.Time
	// resyncAt is the sync the PLEG triggers after the sandbox appears.
	resyncAt time.Time
	ip       netip.Addr
	// netHost is the pod's place on the pod network once a container
	// joined it (joinNetwork).
	netHost   atomic.Pointer[vnet.Host]
	startTime *metav1.Time
	initCtrs  []*ctr
	ctrs      []*ctr
	ephCtrs   []*ctr // appended under mu (ephemeral.go)
	// vols are the pod's volumes as its containers see them (guarded by
	// mu: a program's first file access makes them).
	vols map[string]*vfs.Volume
	// written is the last status this worker wrote, server what the API
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
	volumes    volumeWait // see volumes.go
	// deadlineHit marks a pod stopped for its activeDeadlineSeconds
	// (deadline.go).
	deadlineHit bool
}

// ctr is the emulated state of one container.
type ctr struct {
	spec   corev1.Container
	init   bool
	status corev1.ContainerStatus
	// exitAt is when the running process exits by itself (zero: never),
	// with exitCode (command.go).
	exitAt   time.Time
	exitCode int32
	retryAt  time.Time
	readyAt  time.Time
	pullErr  string
	pullBO   backoff
	crashBO  backoff
	// live is the current run's OS, process and logs, read by exec,
	// attach and logs outside the worker's steps.
	live      atomic.Pointer[liveCtr]
	probes    probeStates
	ephemeral bool
	// toldWhy: the event saying the emulation does not run this
	// container's program was recorded.
	toldWhy bool
}

func newPodWorker(n *emuNode, pod *corev1.Pod) *podWorker {
	w := &podWorker{node: n, clock: n.agent.clock, pod: pod}
	for _, c := range pod.Spec.InitContainers {
		w.initCtrs = append(w.initCtrs, newCtr(c, true))
	}
	for _, c := range pod.Spec.Containers {
		w.ctrs = append(w.ctrs, newCtr(c, false))
	}
	return w
}

func newCtr(c corev1.Container, init bool) *ctr {
	return &ctr{spec: c, init: init, status: corev1.ContainerStatus{
		Name: c.Name, Image: c.Image,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}},
	}}
}

// update records the latest pod; the caller queues the worker.
func (w *podWorker) update(pod *corev1.Pod) {
	w.mu.Lock()
	w.pod = pod
	w.mu.Unlock()
}

func (w *podWorker) latest() *corev1.Pod {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pod
}

// isActive reports whether the pod counts against the node's resources.
func (w *podWorker) isActive() bool { return w.admitted.Load() && !w.terminal.Load() }

// step is one pass of what used to be the worker's loop: sync, write the
// status, and say when the next thing is due (zero: nothing until the pod
// changes). A terminal pod returns zero and so leaves the queue for good.
func (w *podWorker) step(ctx context.Context) time.Time {
	if w.removed.Load() || w.finished {
		return time.Time{}
	}
	pod := w.latest()
	if !w.restored {
		w.restore(pod)
		w.restored = true
	}
	w.pauseSeen = false
	defer w.dropAbandonedPause()
	if pod.DeletionTimestamp != nil {
		return w.terminate(ctx, pod)
	}
	if w.terminal.Load() {
		return w.retryUnwritten(ctx)
	}
	w.syncPod(ctx, pod)
	w.dropAbandonedPause()
	if w.paused() {
		// As the blocking sleep did, a pause holds the status back until
		// the pull or the stop is over.
		return w.pauseUntil
	}
	w.writeStatus(ctx, pod)
	return earliest(w.nextWake(), w.statusRetry())
}

// statusRetry is when a failed status write is tried again: the status
// manager's sync period.
func (w *podWorker) statusRetry() time.Time {
	if w.unwritten == nil {
		return time.Time{}
	}
	return w.clock.Now().Add(statusRetryPeriod)
}

// retryUnwritten writes a terminal pod's status again after a failure.
func (w *podWorker) retryUnwritten(ctx context.Context) time.Time {
	if w.unwritten != nil {
		w.putStatus(ctx, *w.unwritten)
	}
	return w.statusRetry()
}

// earliest is the earlier of two wake times, zero meaning none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// Pauses a pod can be in.
const (
	pausePull = "pull"
	pauseStop = "stop"
)

// wait reports whether d has passed since the pod began waiting for key.
// The first call starts the wait and the step ends there (paused); the
// step at the end of the wait reaches the same call again, which then
// reports true. Starting a wait for another key abandons the current one.
func (w *podWorker) wait(key string, d time.Duration) bool {
	now := w.clock.Now()
	if w.pauseKey != key {
		if d <= 0 {
			return true
		}
		w.pauseKey, w.pauseUntil, w.pauseSeen = key, now.Add(d), true
		return false
	}
	w.pauseSeen = true
	if now.Before(w.pauseUntil) {
		return false
	}
	w.pauseKey, w.pauseUntil = "", time.Time{}
	return true
}

// dropAbandonedPause ends a wait the step did not come back to: another
// pod pulled the image meanwhile, or the pod is being deleted.
func (w *podWorker) dropAbandonedPause() {
	if !w.pauseSeen {
		w.pauseKey, w.pauseUntil = "", time.Time{}
	}
}

// paused reports whether the pod waits for a pull or a stop.
func (w *podWorker) paused() bool { return w.pauseKey != "" }

// pause is the image pull's wait (pull.go); false ends the step.
func (w *podWorker) pause(_ context.Context, d time.Duration) bool { return w.wait(pausePull, d) }

// pulling reports whether an image pull is under way, so that the step
// that finishes it does not announce it again.
func (w *podWorker) pulling() bool { return w.pauseKey == pausePull }

// restore adopts what the API already says about the pod: after an agent
// restart, running containers keep running and keep their IP.
func (w *podWorker) restore(pod *corev1.Pod) {
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
	w.annotated = pod.Annotations[AnnotationWindowsResources] != ""
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
				// restarted is gone; the container keeps running, idle.
				c.live.Store(&liveCtr{id: s.ContainerID, proc: idleProcess(clock.RealClock{})})
				c.readyAt = readyTime(c, r.StartedAt.Time)
			}
		}
	}
}

// nextWake is the earliest time something is due: a retry, an exit or a
// readiness change.
func (w *podWorker) nextWake() time.Time {
	if w.terminal.Load() {
		return time.Time{}
	}
	var next time.Time
	consider := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	if !w.sandboxReady {
		consider(w.sandboxRetryAt)
		consider(w.clock.Now().Add(networkRetry))
		consider(w.volumes.wake())
	}
	for _, c := range w.containers() {
		switch {
		case c.status.State.Running != nil:
			consider(c.exitAt)
			consider(c.probeWake())
			if !c.status.Ready && c.spec.ReadinessProbe == nil {
				consider(c.readyAt)
			}
		case c.status.State.Waiting != nil, c.status.State.Terminated != nil && !c.retryAt.IsZero():
			consider(c.retryAt)
		}
	}
	consider(w.resyncAt)
	consider(w.activeDeadline())
	consider(w.resizeWake())
	return next
}

// syncPod does one pass of the kubelet's SyncPod: admission on first sight,
// then sandbox, init containers and containers, each only as far as it can
// get now.
func (w *podWorker) syncPod(ctx context.Context, pod *corev1.Pod) {
	if !w.admitted.Load() {
		if r := w.node.admit(w, pod); !r.Admit {
			w.reject(ctx, pod, r)
			return
		}
	}
	now := w.clock.Now()
	if w.startTime == nil {
		w.startTime = ptr.To(metav1.NewTime(now))
	}
	if w.pastDeadline(now) {
		w.enforceDeadline(pod)
		return
	}
	w.applyResize(pod, now)
	// The kubelet mounts the pod's volumes before it creates the sandbox.
	if !w.sandboxReady && !w.volumesReady(ctx, pod) {
		return
	}
	if !w.sandboxReady && !w.createSandbox(ctx, pod) {
		return
	}
	// A sync the PLEG triggered looks at every container again, whatever
	// its own retry time.
	resync := !w.resyncAt.IsZero() && !now.Before(w.resyncAt)
	if resync {
		w.resyncAt = time.Time{}
	}
	if !w.runInitContainers(ctx, pod, now, resync) {
		return
	}
	w.runContainers(ctx, pod, now, resync)
	w.addEphemeral(pod)
	w.runEphemeral(ctx, pod, now)
}

// reject fails the pod as the kubelet's rejectPod does (KLT-4).
func (w *podWorker) reject(ctx context.Context, pod *corev1.Pod, r admitResult) {
	w.terminal.Store(true)
	w.node.recorder.Event(pod, corev1.EventTypeWarning, r.Reason, r.Message)
	w.putStatus(ctx, rejectedStatus(pod, r.Reason, r.Message))
}

// createSandbox starts the pod sandbox: the pause image must run on the
// host (IMG-5) and a pod-network pod needs an address from the node's CIDR.
// A failure has no back-off of its own: the failed sync is retried after
// the pod worker's 10–15 s (pod_workers.go completeWork).
func (w *podWorker) createSandbox(ctx context.Context, pod *corev1.Pod) bool {
	now := w.clock.Now()
	if now.Before(w.sandboxRetryAt) {
		return false
	}
	var m *ipam
	if w.node.spec.host.UsesPodNetwork(pod) {
		if m = w.node.network(); m == nil {
			return false // no pod CIDR yet: the CNI cannot set up the network
		}
	}
	sandboxID := cri.NewID(string(pod.UID) + "/sandbox")
	if err := w.node.spec.host.Runtime().RunSandbox(w.sandboxImage(pod), sandboxID); err != nil {
		w.node.recorder.Eventf(pod, corev1.EventTypeWarning, "FailedCreatePodSandBox", "Failed to create pod sandbox: %v", err)
		w.sandboxRetryAt = syncRetryAt(now)
		return false
	}
	if m != nil {
		ip, err := m.Allocate(string(pod.UID))
		if err != nil {
			msg := fmt.Sprintf("rpc error: code = Unknown desc = failed to setup network for sandbox %q: plugin type=\"host-local\" failed (add): failed to allocate for range 0: %v", sandboxID, err)
			w.node.recorder.Eventf(pod, corev1.EventTypeWarning, "FailedCreatePodSandBox", "Failed to create pod sandbox: %s", msg)
			w.sandboxRetryAt = syncRetryAt(now)
			return false
		}
		w.ip = ip
	}
	w.sandboxReady = true
	// The PLEG sees the new sandbox at its next relist and syncs the pod
	// again, which is when a failed pull first shows ImagePullBackOff.
	w.resyncAt = now.Add(plegRelist)
	w.annotate(pod)
	return true
}

// sandboxImage is the pause image: the kubelet release's default (IMG-5)
// unless the pod overrides it.
func (w *podWorker) sandboxImage(pod *corev1.Pod) string {
	if img := pod.Annotations[AnnotationSandboxImage]; img != "" {
		return img
	}
	return w.node.spec.pauseImage()
}

// annotate records the Windows runtime settings on the pod (KLT-5..7);
// the annotation goes out with the next status patch.
func (w *podWorker) annotate(pod *corev1.Pod) {
	if w.annotated || w.annotation != "" || w.node.spec.host.OS() != "windows" {
		return
	}
	value, err := windowsResourcesAnnotation(pod, int64(w.node.spec.pool.CPU))
	if err != nil {
		w.node.reportErr(err)
		return
	}
	w.annotation = value
}

// writeStatus posts the pod status when it changed since the last post.
func (w *podWorker) writeStatus(ctx context.Context, pod *corev1.Pod) {
	if w.terminal.Load() && w.unwritten != nil {
		return // the final status is written again by retryUnwritten
	}
	if w.terminal.Load() && w.written != nil && w.written.Phase == corev1.PodFailed && w.written.Reason != "" {
		return // rejected: reject already wrote the final status
	}
	st := w.render(pod)
	if isTerminalPhase(st.Phase) {
		w.terminal.Store(true)
		if m := w.node.network(); m != nil {
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
func (w *podWorker) putStatus(ctx context.Context, st corev1.PodStatus) {
	if w.written != nil && w.annotation == "" && equality.Semantic.DeepEqual(*w.written, st) {
		return
	}
	pod := w.latest()
	base := w.server
	if base == nil {
		base = &pod.Status
	}
	patch, err := statusPatch(pod.UID, *base, st, w.annotation)
	if err != nil {
		w.node.reportErr(err)
		return
	}
	updated, err := w.node.agent.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name,
		types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	switch {
	case err == nil:
		// Keep the returned status alone, not the whole pod it is part of.
		server := updated.Status
		w.written, w.server, w.unwritten = st.DeepCopy(), &server, nil
		w.shown.Store(w.written)
		if w.annotation != "" {
			w.annotation, w.annotated = "", true
		}
		w.node.succeeded(opPodStatus)
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err) || ctx.Err() != nil:
		// Gone, or a new pod of the same name (the UID precondition):
		// nothing left to write for this one.
		w.unwritten = nil
	default:
		w.unwritten = st.DeepCopy()
		w.node.failed(opPodStatus, err)
	}
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
		meta["annotations"] = map[string]string{AnnotationWindowsResources: annotation}
	}
	patch["metadata"] = meta
	out, err := json.Marshal(patch)
	if err != nil {
		return nil, fmt.Errorf("encode pod status patch: %w", err)
	}
	return out, nil
}

func hasCondition(pod *corev1.Pod, t corev1.PodConditionType, s corev1.ConditionStatus) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t {
			return c.Status == s
		}
	}
	return false
}
