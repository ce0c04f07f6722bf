package node

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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

// Emulation timing.
const (
	defaultRunSeconds     = 2.0
	initRunSeconds        = 1.0
	gracefulStopTime      = 150 * time.Millisecond
	backoffInitial        = 10 * time.Second
	backoffMax            = 300 * time.Second
	pullBackOffShowsAfter = time.Second
	networkRetry          = time.Second
	defaultGracePeriod    = 30
)

// podWorker runs one pod on one emulated node, like the kubelet's pod
// worker: admission, sandbox, init containers, containers, status, and
// termination on deletion. One goroutine per pod owns all the state below
// except the fields marked otherwise.
type podWorker struct {
	node *emuNode

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
	sandboxBackoff backoff
	ip             netip.Addr
	startTime      *metav1.Time
	initCtrs       []*ctr
	ctrs           []*ctr
	written        *corev1.PodStatus
	annotated      bool
	volumes        volumeWait // see volumes.go
}

// ctr is the emulated state of one container.
type ctr struct {
	spec   corev1.Container
	init   bool
	status corev1.ContainerStatus
	// exitAt is when the running process exits by itself; zero = never.
	exitAt  time.Time
	retryAt time.Time
	readyAt time.Time
	pullErr string
	// pullRetryAt ends the current image pull back-off.
	pullRetryAt time.Time
	pullBO      backoff
	createBO    backoff
	crashBO     backoff
}

// backoff doubles from 10 s to 5 min, like the kubelet's image and crash
// loop back-offs.
type backoff struct{ d time.Duration }

func (b *backoff) next() time.Duration {
	switch {
	case b.d == 0:
		b.d = backoffInitial
	case b.d < backoffMax:
		b.d = min(2*b.d, backoffMax)
	}
	return b.d
}

func newPodWorker(n *emuNode, pod *corev1.Pod) *podWorker {
	w := &podWorker{node: n, pod: pod, notify: make(chan struct{}, 1), done: make(chan struct{})}
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
		t := time.NewTimer(max(time.Until(wake), 10*time.Millisecond))
		defer t.Stop()
		timer = t.C
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
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-w.done:
		return false
	case <-t.C:
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
				c.exitAt = exitTime(pod, c, r.StartedAt.Time)
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
		consider(time.Now().Add(networkRetry))
		consider(w.volumes.wake())
	}
	for _, c := range append(append([]*ctr(nil), w.initCtrs...), w.ctrs...) {
		switch {
		case c.status.State.Running != nil:
			consider(c.exitAt)
			if !c.status.Ready {
				consider(c.readyAt)
			}
		case c.status.State.Waiting != nil:
			consider(c.retryAt)
		}
	}
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
	if w.startTime == nil {
		w.startTime = ptr.To(metav1.Now())
	}
	// The kubelet mounts the pod's volumes before it creates the sandbox.
	if !w.sandboxReady && !w.volumesReady(ctx, pod) {
		return
	}
	if !w.sandboxReady && !w.createSandbox(ctx, pod) {
		return
	}
	if !w.runInitContainers(ctx, pod) {
		return
	}
	w.runContainers(ctx, pod)
}

// reject fails the pod as the kubelet's rejectPod does (KLT-4).
func (w *podWorker) reject(ctx context.Context, pod *corev1.Pod, r admitResult) {
	w.terminal.Store(true)
	w.node.recorder.Event(pod, corev1.EventTypeWarning, r.Reason, r.Message)
	st := corev1.PodStatus{
		Phase:    corev1.PodFailed,
		Reason:   r.Reason,
		Message:  rejectedPrefix + r.Message,
		QOSClass: pod.Status.QOSClass,
	}
	w.putStatus(ctx, st)
}

// createSandbox starts the pod sandbox: the pause image must run on the
// host (IMG-5) and a pod-network pod needs an address from the node's CIDR.
func (w *podWorker) createSandbox(ctx context.Context, pod *corev1.Pod) bool {
	now := time.Now()
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
		w.sandboxRetryAt = now.Add(w.sandboxBackoff.next())
		return false
	}
	if m != nil {
		ip, err := m.Allocate(string(pod.UID))
		if err != nil {
			msg := fmt.Sprintf("rpc error: code = Unknown desc = failed to setup network for sandbox %q: plugin type=\"host-local\" failed (add): failed to allocate for range 0: %v", sandboxID, err)
			w.node.recorder.Eventf(pod, corev1.EventTypeWarning, "FailedCreatePodSandBox", "Failed to create pod sandbox: %s", msg)
			w.sandboxRetryAt = now.Add(w.sandboxBackoff.next())
			return false
		}
		w.ip = ip
	}
	w.sandboxReady = true
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

// runInitContainers runs init containers one at a time, in order; it
// reports whether all of them have completed. Sidecars (restartable init
// containers) only need to be running.
func (w *podWorker) runInitContainers(ctx context.Context, pod *corev1.Pod) bool {
	now := time.Now()
	for _, c := range w.initCtrs {
		sidecar := c.spec.RestartPolicy != nil && *c.spec.RestartPolicy == corev1.ContainerRestartPolicyAlways
		s := c.status.State
		switch {
		case s.Terminated != nil && s.Terminated.ExitCode == 0 && !sidecar:
			continue
		case s.Running != nil && sidecar:
			continue
		case s.Running != nil && !c.exitAt.IsZero() && !now.Before(c.exitAt):
			w.exit(pod, c, 0, now)
			if c.status.State.Terminated != nil && c.status.State.Terminated.ExitCode == 0 {
				continue
			}
			return false
		case s.Running != nil:
			return false
		case s.Terminated != nil:
			w.afterExit(pod, c, now)
			return false
		case !now.Before(c.retryAt):
			w.startContainer(ctx, pod, c)
			return false
		default:
			return false
		}
	}
	return true
}

// runContainers starts, stops and restarts the regular containers.
func (w *podWorker) runContainers(ctx context.Context, pod *corev1.Pod) {
	now := time.Now()
	for _, c := range w.ctrs {
		s := c.status.State
		switch {
		case s.Running != nil && !c.exitAt.IsZero() && !now.Before(c.exitAt):
			w.exit(pod, c, exitCode(pod), now)
			w.afterExit(pod, c, now)
		case s.Running != nil:
			c.status.Ready = !now.Before(c.readyAt)
		case s.Waiting != nil && !now.Before(c.retryAt):
			w.startContainer(ctx, pod, c)
		}
	}
}

// exit records a container's process ending by itself.
func (w *podWorker) exit(pod *corev1.Pod, c *ctr, code int32, now time.Time) {
	reason := "Completed"
	if code != 0 {
		reason = "Error"
	}
	started := c.status.State.Running.StartedAt
	c.status.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: code, Reason: reason, StartedAt: started, FinishedAt: metav1.NewTime(now), ContainerID: c.status.ContainerID,
	}}
	// A completed init container reports ready, a stopped container not.
	c.status.Ready = c.init && code == 0
	c.status.Started = ptr.To(false)
	c.exitAt = time.Time{}
}

// afterExit schedules a restart with crash-loop back-off when the restart
// policy asks for one.
func (w *podWorker) afterExit(pod *corev1.Pod, c *ctr, now time.Time) {
	t := c.status.State.Terminated
	if t == nil || !shouldRestart(pod, c, t.ExitCode) {
		return
	}
	d := c.crashBO.next()
	c.retryAt = now.Add(d)
	c.status.LastTerminationState = corev1.ContainerState{Terminated: t}
	c.status.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
		Reason:  "CrashLoopBackOff",
		Message: fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", d, c.spec.Name, podDesc(pod)),
	}}
	w.node.recorder.Eventf(containerRef(pod, c), corev1.EventTypeWarning, "BackOff",
		"Back-off restarting failed container %s in pod %s", c.spec.Name, podDesc(pod))
}

func shouldRestart(pod *corev1.Pod, c *ctr, code int32) bool {
	if c.spec.RestartPolicy != nil {
		return *c.spec.RestartPolicy == corev1.ContainerRestartPolicyAlways
	}
	switch pod.Spec.RestartPolicy {
	case corev1.RestartPolicyNever:
		return false
	case corev1.RestartPolicyOnFailure:
		return code != 0
	default:
		return true
	}
}

func podDesc(pod *corev1.Pod) string {
	return fmt.Sprintf("%s_%s(%s)", pod.Name, pod.Namespace, pod.UID)
}

// startContainer pulls, creates and starts one container, recording the
// kubelet's events; failures leave the container waiting with the reason
// the kubelet would show.
func (w *podWorker) startContainer(ctx context.Context, pod *corev1.Pod, c *ctr) {
	pulled, ok := w.ensureImage(ctx, pod, c)
	if !ok {
		return
	}
	ref := containerRef(pod, c)
	restarts := c.status.RestartCount
	if c.status.LastTerminationState.Terminated != nil {
		restarts++
	}
	id := cri.NewID(fmt.Sprintf("%s/%s/%d", pod.UID, c.spec.Name, restarts))
	rt := w.node.spec.host.Runtime()
	if err := rt.CreateContainer(c.spec.Image, id); err != nil {
		// The kubelet replaces the container ID with the name in events.
		w.node.recorder.Eventf(ref, corev1.EventTypeWarning, "Failed", "Error: %s", replaceID(err.Error(), id, c.spec.Name))
		c.status.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CreateContainerError", Message: err.Error()}}
		c.retryAt = time.Now().Add(c.createBO.next())
		return
	}
	w.node.recorder.Event(ref, corev1.EventTypeNormal, "Created", "Container created")
	w.node.recorder.Event(ref, corev1.EventTypeNormal, "Started", "Container started")
	now := time.Now()
	c.status.RestartCount = restarts
	c.status.ContainerID = rt.IDPrefix() + id
	c.status.Image = pulled.Ref
	c.status.ImageID = pulled.ImageID
	c.status.Started = ptr.To(true)
	c.status.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now)}}
	c.exitAt = exitTime(pod, c, now)
	c.readyAt = readyTime(c, now)
	c.status.Ready = !c.init && !now.Before(c.readyAt)
	c.createBO = backoff{}
}

// ensureImage applies the pull policy and pulls with the kubelet's events,
// errors and back-off (IMG-4).
func (w *podWorker) ensureImage(ctx context.Context, pod *corev1.Pod, c *ctr) (cri.Pulled, bool) {
	ref := containerRef(pod, c)
	image := c.spec.Image
	rt := w.node.spec.host.Runtime()
	pulled, err := rt.Pull(image)
	present := err == nil && w.node.hasImage(pulled.Ref)
	rec := w.node.recorder
	switch {
	case present && c.spec.ImagePullPolicy != corev1.PullAlways:
		rec.Eventf(ref, corev1.EventTypeNormal, "Pulled", "Container image %q already present on machine", image)
		return pulled, true
	case c.spec.ImagePullPolicy == corev1.PullNever:
		msg := fmt.Sprintf("Container image %q is not present with pull policy of Never", image)
		rec.Event(ref, corev1.EventTypeWarning, "ErrImageNeverPull", msg)
		c.status.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImageNeverPull", Message: msg}}
		c.retryAt = time.Now().Add(backoffInitial)
		return cri.Pulled{}, false
	}
	if c.pullErr != "" && time.Now().Before(c.pullRetryAt) {
		rec.Eventf(ref, corev1.EventTypeNormal, "BackOff", "Back-off pulling image %q", image)
		rec.Event(ref, corev1.EventTypeWarning, "Failed", "Error: ImagePullBackOff")
		c.status.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
			Reason: "ImagePullBackOff", Message: fmt.Sprintf("Back-off pulling image %q: ErrImagePull: %s", image, c.pullErr),
		}}
		c.retryAt = c.pullRetryAt
		return cri.Pulled{}, false
	}
	rec.Eventf(ref, corev1.EventTypeNormal, "Pulling", "Pulling image %q", image)
	if !w.pause(ctx, pullTime(pulled)) {
		return cri.Pulled{}, false
	}
	if err != nil {
		rec.Eventf(ref, corev1.EventTypeWarning, "Failed", "Failed to pull image %q: %v", image, err)
		rec.Event(ref, corev1.EventTypeWarning, "Failed", "Error: ErrImagePull")
		c.pullErr = err.Error()
		c.status.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImagePull", Message: err.Error()}}
		// Show ImagePullBackOff a moment later; pull again after the back-off.
		now := time.Now()
		c.pullRetryAt = now.Add(c.pullBO.next())
		c.retryAt = now.Add(pullBackOffShowsAfter)
		return cri.Pulled{}, false
	}
	rec.Eventf(ref, corev1.EventTypeNormal, "Pulled", "Successfully pulled image %q in %v (%v including waiting). Image size: %d bytes.",
		image, pulled.Duration, pulled.Duration, pulled.Size)
	w.node.addImage(pulled.Ref)
	c.pullErr = ""
	c.pullBO = backoff{}
	return pulled, true
}

// pullTime is how long the emulated pull takes; failures fail fast.
func pullTime(p cri.Pulled) time.Duration {
	if p.Duration == 0 {
		return 150 * time.Millisecond
	}
	return p.Duration
}

func replaceID(msg, id, name string) string {
	out := []byte(nil)
	for i := 0; i < len(msg); {
		if len(msg)-i >= len(id) && msg[i:i+len(id)] == id {
			out = append(out, name...)
			i += len(id)
			continue
		}
		out = append(out, msg[i])
		i++
	}
	return string(out)
}

// exitTime is when a container started at `started` exits by itself.
func exitTime(pod *corev1.Pod, c *ctr, started time.Time) time.Time {
	if c.init && !(c.spec.RestartPolicy != nil && *c.spec.RestartPolicy == corev1.ContainerRestartPolicyAlways) {
		return started.Add(seconds(initRunSeconds))
	}
	secs, set := runSeconds(pod)
	if !set && pod.Spec.RestartPolicy == corev1.RestartPolicyAlways {
		return time.Time{} // a server: runs until deleted
	}
	if c.init {
		return time.Time{} // sidecars run as long as the pod
	}
	return started.Add(seconds(secs))
}

func runSeconds(pod *corev1.Pod) (float64, bool) {
	if v, err := strconv.ParseFloat(pod.Annotations[AnnotationRunSeconds], 64); err == nil && v >= 0 {
		return v, true
	}
	return defaultRunSeconds, false
}

func exitCode(pod *corev1.Pod) int32 {
	if v, err := strconv.ParseInt(pod.Annotations[AnnotationExitCode], 10, 32); err == nil {
		return int32(v)
	}
	return 0
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// readyTime honours readinessProbe.initialDelaySeconds; emulated probes
// always succeed.
func readyTime(c *ctr, started time.Time) time.Time {
	if p := c.spec.ReadinessProbe; p != nil {
		return started.Add(time.Duration(p.InitialDelaySeconds) * time.Second)
	}
	return started
}

// containerRef is the object reference of a container's events.
func containerRef(pod *corev1.Pod, c *ctr) *corev1.ObjectReference {
	field := fmt.Sprintf("spec.containers{%s}", c.spec.Name)
	if c.init {
		field = fmt.Sprintf("spec.initContainers{%s}", c.spec.Name)
	}
	return &corev1.ObjectReference{
		Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name,
		UID: pod.UID, ResourceVersion: pod.ResourceVersion, FieldPath: field,
	}
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
		w.node.reportErr(fmt.Errorf("annotate pod %s/%s: %w", pod.Namespace, pod.Name, err))
		return
	}
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
			w.node.reportErr(fmt.Errorf("update status of pod %s/%s: %w", cur.Namespace, cur.Name, err))
			return
		}
	}
}

// terminate stops the pod after its deletion was requested: Killing events,
// the grace period the runtime really grants (LIM-14), a final status, and
// the final delete with grace 0 that lets the API server remove the pod.
func (w *podWorker) terminate(ctx context.Context, pod *corev1.Pod) {
	if !w.terminal.Load() {
		w.stopContainers(ctx, pod)
		if ctx.Err() != nil {
			return
		}
		w.writeStatus(ctx, w.latest())
	}
	if m := w.node.network(); m != nil {
		m.Release(string(pod.UID))
	}
	opts := metav1.DeleteOptions{
		GracePeriodSeconds: ptr.To[int64](0),
		Preconditions:      &metav1.Preconditions{UID: &pod.UID},
	}
	err := w.node.agent.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, opts)
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) && ctx.Err() == nil {
		w.node.reportErr(fmt.Errorf("delete pod %s/%s: %w", pod.Namespace, pod.Name, err))
	}
}

// stopContainers sends every running container the stop signal and waits
// as the program would: a prompt exit, or, when it ignores the signal, the
// whole grace period before the runtime kills it.
func (w *podWorker) stopContainers(ctx context.Context, pod *corev1.Pod) {
	var running []*ctr
	for _, c := range append(append([]*ctr(nil), w.initCtrs...), w.ctrs...) {
		if c.status.State.Running != nil {
			running = append(running, c)
			w.node.recorder.Eventf(containerRef(pod, c), corev1.EventTypeNormal, "Killing", "Stopping container %s", c.spec.Name)
		}
	}
	if len(running) == 0 {
		w.markNeverStarted()
		return
	}
	grace := w.node.spec.host.GracePeriod(gracePeriod(pod))
	ignores := pod.Annotations[AnnotationIgnoreSIGTERM] == "true"
	wait := gracefulStopTime
	code := int32(0)
	if ignores {
		wait = time.Duration(grace) * time.Second
		code = w.node.spec.host.KilledExitCode()
	}
	if !w.pause(ctx, wait) {
		return
	}
	now := time.Now()
	for _, c := range running {
		w.exit(pod, c, code, now)
	}
	w.markNeverStarted()
}

// markNeverStarted leaves containers that never ran waiting with the reason
// the kubelet shows once the pod is being torn down.
func (w *podWorker) markNeverStarted() {
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

func hasCondition(pod *corev1.Pod, t corev1.PodConditionType, s corev1.ConditionStatus) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t {
			return c.Status == s
		}
	}
	return false
}
