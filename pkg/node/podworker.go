package node

import (
	"context"
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
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/node/internal/cri"
)

// Annotations that steer the emulated processes of a pod. They stand in for
// what the container's program would do on a real node.
const (
	// AnnotationRunSeconds is how long each container runs before it exits.
	// Without it, containers of pods whose restartPolicy is not Always exit
	// after defaultRunSeconds and the others run until deleted.
	AnnotationRunSeconds = "winkube.io/run-seconds"
	// AnnotationExitCode is the exit code of the regular containers.
	AnnotationExitCode = "winkube.io/exit-code"
	// AnnotationIgnoreSIGTERM "true" makes the containers ignore the stop
	// signal, so they run until the (runtime-capped, LIM-14) grace period
	// ends and are then killed.
	AnnotationIgnoreSIGTERM = "winkube.io/ignore-sigterm"
	// AnnotationSandboxImage overrides the node's pause image for one pod,
	// to show what a node configured with that image does (IMG-5, TS-11).
	AnnotationSandboxImage = "winkube.io/sandbox-image"
)

// Emulation timing; the kubelet's own timings are in backoff.go.
const (
	defaultRunSeconds = 2.0
	initRunSeconds    = 1.0
	gracefulStopTime  = 150 * time.Millisecond
	// networkRetry is the kubelet's backOffOnTransientErrorPeriod: a pod
	// whose network is not ready is synced again after a second.
	networkRetry       = time.Second
	defaultGracePeriod = 30
)

// podWorker runs one pod on one emulated node, like the kubelet's pod
// worker: admission, sandbox, init containers, containers, status, and
// termination on deletion. One goroutine per pod owns all the state below
// except the fields marked otherwise.
type podWorker struct {
	node *emuNode
	// clock is the worker's time source; tests pass a fake one to step
	// through back-offs and grace periods in virtual time.
	clock clock.Clock

	mu     sync.Mutex
	pod    *corev1.Pod // latest version from the informer (guarded by mu)
	notify chan struct{}
	done   chan struct{}
	once   sync.Once
	// admitted and terminal are read by the node during admission.
	admitted atomic.Bool
	terminal atomic.Bool

	sandboxReady   bool
	sandboxRetryAt time.Time
	// resyncAt is the sync the PLEG triggers after the sandbox appears.
	resyncAt  time.Time
	ip        netip.Addr
	startTime *metav1.Time
	initCtrs  []*ctr
	ctrs      []*ctr
	written   *corev1.PodStatus
	annotated bool
	volumes   volumeWait // see volumes.go
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
}

func newPodWorker(n *emuNode, pod *corev1.Pod) *podWorker {
	w := &podWorker{node: n, clock: clock.RealClock{}, pod: pod, notify: make(chan struct{}, 1), done: make(chan struct{})}
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

// update records the latest pod and wakes the worker.
func (w *podWorker) update(pod *corev1.Pod) {
	w.mu.Lock()
	w.pod = pod
	w.mu.Unlock()
	select {
	case w.notify <- struct{}{}:
	default:
	}
}

func (w *podWorker) latest() *corev1.Pod {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pod
}

func (w *podWorker) stop() { w.once.Do(func() { close(w.done) }) }

// isActive reports whether the pod counts against the node's resources.
func (w *podWorker) isActive() bool { return w.admitted.Load() && !w.terminal.Load() }

// run is the worker loop: sync, write status, sleep until the next thing
// happens or the pod changes.
func (w *podWorker) run(ctx context.Context) {
	w.restore(w.latest())
	for {
		pod := w.latest()
		if pod.DeletionTimestamp != nil {
			w.terminate(ctx, pod)
			return
		}
		if !w.terminal.Load() {
			w.syncPod(ctx, pod)
			w.writeStatus(ctx, pod)
		}
		if !w.sleep(ctx, w.nextWake()) {
			return
		}
	}
}

// sleep waits until wake, a pod update, or the end; it reports whether the
// worker should go on.
func (w *podWorker) sleep(ctx context.Context, wake time.Time) bool {
	var timer <-chan time.Time
	if !wake.IsZero() {
		t := w.clock.NewTimer(max(wake.Sub(w.clock.Now()), 10*time.Millisecond))
		defer t.Stop()
		timer = t.C()
	}
	select {
	case <-ctx.Done():
		return false
	case <-w.done:
		return false
	case <-w.notify:
	case <-timer:
	}
	return true
}

// pause waits d unless the pod is deleted or the worker stops; it reports
// whether the full time passed.
func (w *podWorker) pause(ctx context.Context, d time.Duration) bool {
	t := w.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-w.done:
		return false
	case <-t.C():
		return true
	}
}

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
				c.exitAt, c.exitCode = exitPlan(pod, c, r.StartedAt.Time)
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
	for _, c := range append(append([]*ctr(nil), w.initCtrs...), w.ctrs...) {
		switch {
		case c.status.State.Running != nil:
			consider(c.exitAt)
			if !c.status.Ready {
				consider(c.readyAt)
			}
		case c.status.State.Waiting != nil, c.status.State.Terminated != nil && !c.retryAt.IsZero():
			consider(c.retryAt)
		}
	}
	consider(w.resyncAt)
	consider(w.activeDeadline())
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
		w.enforceDeadline(ctx, pod)
		return
	}
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
	w.annotate(ctx, pod)
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

// annotate records the Windows runtime settings on the pod (KLT-5..7).
func (w *podWorker) annotate(ctx context.Context, pod *corev1.Pod) {
	if w.annotated || w.node.spec.host.OS() != "windows" {
		return
	}
	value, err := windowsResourcesAnnotation(pod, int64(w.node.spec.pool.CPU))
	if err != nil {
		w.node.reportErr(err)
		return
	}
	patch, err := jsonMergePatchAnnotation(AnnotationWindowsResources, value)
	if err != nil {
		w.node.reportErr(err)
		return
	}
	_, err = w.node.agent.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		w.node.failed(opPodPatch, err)
		return
	}
	w.node.succeeded(opPodPatch)
	w.annotated = true
}

// writeStatus posts the pod status when it changed since the last post.
func (w *podWorker) writeStatus(ctx context.Context, pod *corev1.Pod) {
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

// putStatus writes st unless it equals what was last written.
func (w *podWorker) putStatus(ctx context.Context, st corev1.PodStatus) {
	if w.written != nil && equality.Semantic.DeepEqual(*w.written, st) {
		return
	}
	pods := w.node.agent.client.CoreV1().Pods(w.latest().Namespace)
	cur := w.latest().DeepCopy()
	for attempt := 0; attempt < 5; attempt++ {
		cur.Status = *st.DeepCopy()
		_, err := pods.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		switch {
		case err == nil:
			w.written = st.DeepCopy()
			w.node.succeeded(opPodStatus)
			return
		case apierrors.IsNotFound(err) || ctx.Err() != nil:
			return
		case apierrors.IsConflict(err):
			fresh, gerr := pods.Get(ctx, cur.Name, metav1.GetOptions{})
			if gerr != nil || fresh.UID != cur.UID {
				return
			}
			cur = fresh
			st.Conditions = mergeConditions(fresh.Status.Conditions, st.Conditions)
		default:
			w.node.failed(opPodStatus, err)
			return
		}
	}
}

func hasCondition(pod *corev1.Pod, t corev1.PodConditionType, s corev1.ConditionStatus) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t {
			return c.Status == s
		}
	}
	return false
}
