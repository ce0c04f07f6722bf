package podworker

import (
	"context"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/emu/vnet"
	"github.com/winkube/winkube/pkg/node/internal/admission"
	"github.com/winkube/winkube/pkg/node/internal/backoff"
	"github.com/winkube/winkube/pkg/node/internal/images"
	"github.com/winkube/winkube/pkg/node/internal/podfs"
	"github.com/winkube/winkube/pkg/node/internal/podstatus"
	"github.com/winkube/winkube/pkg/node/internal/process"
	"github.com/winkube/winkube/pkg/node/internal/volume"
	winos "github.com/winkube/winkube/pkg/node/internal/windows"
)

// Emulation timing; the kubelet's own timings are in package backoff.
const (
	defaultRunSeconds = 2.0
	initRunSeconds    = 1.0
	gracefulStopTime  = 150 * time.Millisecond
	// networkRetry is the kubelet's backOffOnTransientErrorPeriod: a pod
	// whose network is not ready is synced again after a second.
	networkRetry       = time.Second
	defaultGracePeriod = 30
)

// Worker is the state of one pod on one emulated node, like the
// kubelet's pod worker: admission, sandbox, init containers, containers,
// status, and termination on deletion. It owns no goroutine: the agent's
// pod queue (pkg/node's queue.go) hands it to one worker at a time, which
// calls step; step returns when the pod next needs a look. Only the fields
// marked otherwise are touched outside a step.
type Worker struct {
	node *Node
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
	// fs is the pod's files: its volumes as its containers see them,
	// their resync, its emptyDirs' sockets, its containers' filesystems.
	fs *podfs.Pod
	// status writes the pod's status as the kubelet's status manager
	// does (podstatus.Writer).
	status  *podstatus.Writer
	volumes volume.Wait // the volume manager's mount wait
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
	pull     images.State
	crashBO  backoff.Backoff
	// live is the current run's OS, process and logs, read by exec,
	// attach and logs outside the worker's steps.
	live      atomic.Pointer[process.Live]
	probes    probeStates
	ephemeral bool
	// toldWhy: the event saying the emulation does not run this
	// container's program was recorded.
	toldWhy bool
	// resume: the container was Running when the agent restarted; the
	// worker's first pass over it runs its program again (resume.go).
	resume bool
}

// New makes the worker of a pod bound to node n; the agent queues it.
func New(n *Node, pod *corev1.Pod) *Worker {
	w := &Worker{node: n, clock: n.Clock, pod: pod}
	w.volumes = volume.Wait{Recorder: n.Recorder, Issues: n.VolumeIssues, Clock: n.Clock}
	w.status = podstatus.NewWriter(podstatus.Config{
		Client: n.Client, Clock: n.Clock, Pod: w.latest,
		ReportErr: n.ReportErr, Succeeded: n.Succeeded, Failed: n.Failed,
	})
	w.status.Observe(pod)
	w.fs = podfs.New(podfs.Config{
		Windows: n.Host.OS() == "windows", Clock: n.Clock, Ctx: n.RunCtx, Recorder: n.Recorder,
		Client: n.Client, Objects: n.Objects, KubeletNode: n.KubeletNode,
		Disk: n.Disk, ClaimVolume: n.ClaimVolume, Sockets: n.Sockets,
		LayerDir: n.LayerDir, SyncPeriod: n.SyncPeriod,
		Pod: w.latest, PodIPs: w.podIPs, CSIPublished: n.csiPublished(pod.UID),
	})
	for _, c := range pod.Spec.InitContainers {
		w.initCtrs = append(w.initCtrs, newCtr(c, true))
	}
	for _, c := range pod.Spec.Containers {
		w.ctrs = append(w.ctrs, newCtr(c, false))
	}
	return w
}

// csiPublished is Node.CSIPublished for one pod; nil without it.
func (n *Node) csiPublished(uid types.UID) func(name string) (string, bool) {
	if n.CSIPublished == nil {
		return nil
	}
	return func(name string) (string, bool) { return n.CSIPublished(uid, name) }
}

func newCtr(c corev1.Container, init bool) *ctr {
	return &ctr{spec: c, init: init, status: corev1.ContainerStatus{
		Name: c.Name, Image: c.Image,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}},
	}}
}

// update records the latest pod; the caller queues the worker. The
// status writer sees it too (podstatus.Writer.Observe), in the order the
// versions came.
func (w *Worker) update(pod *corev1.Pod) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pod = pod
	w.status.Observe(pod)
}

func (w *Worker) latest() *corev1.Pod {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pod
}

// isActive reports whether the pod counts against the node's resources.
func (w *Worker) isActive() bool { return w.admitted.Load() && !w.terminal.Load() }

// step is one pass of what used to be the worker's loop: sync, write the
// status, and say when the next thing is due (zero: nothing until the pod
// changes). A terminal pod returns zero and so leaves the queue for good.
func (w *Worker) step(ctx context.Context) time.Time {
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
		return w.status.RetryUnwritten(ctx)
	}
	w.syncPod(ctx, pod)
	w.fs.Sync(ctx, pod)
	w.dropAbandonedPause()
	if w.paused() {
		// As the blocking sleep did, a pause holds the status back until
		// the pull or the stop is over.
		return w.pauseUntil
	}
	w.writeStatus(ctx, pod)
	return earliest(w.nextWake(), w.status.Retry())
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
	pausePull    = "pull"
	pausePreStop = "prestop"
	pauseStop    = "stop"
)

// wait reports whether d has passed since the pod began waiting for key.
// The first call starts the wait and the step ends there (paused); the
// step at the end of the wait reaches the same call again, which then
// reports true. Starting a wait for another key abandons the current one.
func (w *Worker) wait(key string, d time.Duration) bool {
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
func (w *Worker) dropAbandonedPause() {
	if !w.pauseSeen {
		w.pauseKey, w.pauseUntil = "", time.Time{}
	}
}

// paused reports whether the pod waits for a pull or a stop.
func (w *Worker) paused() bool { return w.pauseKey != "" }

// pullWait is the image pull's wait (images.Wait).
type pullWait struct{ w *Worker }

// Pause waits out the pull; false ends the step.
func (p pullWait) Pause(d time.Duration) bool { return p.w.wait(pausePull, d) }

// Pulling reports whether an image pull is under way, so that the step
// that finishes it does not announce it again.
func (p pullWait) Pulling() bool { return p.w.pauseKey == pausePull }

// nextWake is the earliest time something is due: a retry, an exit or a
// readiness change.
func (w *Worker) nextWake() time.Time {
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
		consider(w.volumes.Wake())
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
	consider(w.fs.SyncWake())
	return next
}

// syncPod does one pass of the kubelet's SyncPod: admission on first sight,
// then sandbox, init containers and containers, each only as far as it can
// get now.
func (w *Worker) syncPod(ctx context.Context, pod *corev1.Pod) {
	if !w.admitted.Load() {
		if r := w.node.Admit(w, pod); !r.Admit {
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
	if !w.sandboxReady && !w.volumes.Ready(ctx, pod) {
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
func (w *Worker) reject(ctx context.Context, pod *corev1.Pod, r admission.Result) {
	w.terminal.Store(true)
	w.node.Recorder.Event(pod, corev1.EventTypeWarning, r.Reason, r.Message)
	w.status.Put(ctx, podstatus.RejectedStatus(pod, r.Reason, r.Message))
}

// annotate records the Windows runtime settings on the pod (KLT-5..7);
// the annotation goes out with the next status patch.
func (w *Worker) annotate(pod *corev1.Pod) {
	if w.status.Annotating() || w.node.Host.OS() != "windows" {
		return
	}
	value, err := winos.ResourcesAnnotation(pod, int64(w.node.CPUs))
	if err != nil {
		w.node.ReportErr(err)
		return
	}
	w.status.Annotate(value)
}

func hasCondition(pod *corev1.Pod, t corev1.PodConditionType, s corev1.ConditionStatus) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t {
			return c.Status == s
		}
	}
	return false
}
