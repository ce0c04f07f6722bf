package podworker

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/kubelet/util/format"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/node/internal/backoff"
	"github.com/winkube/winkube/pkg/node/internal/cri"
	"github.com/winkube/winkube/pkg/node/internal/images"
	winos "github.com/winkube/winkube/pkg/node/internal/windows"
)

// runInitContainers runs init containers one at a time, in order; it
// reports whether all of them have completed. Sidecars (restartable init
// containers) only need to be running. resync marks a sync the PLEG
// triggered, which re-evaluates every waiting container.
func (w *Worker) runInitContainers(ctx context.Context, pod *corev1.Pod, now time.Time, resync bool) bool {
	for _, c := range w.initCtrs {
		if c.resume {
			w.resumeContainer(ctx, pod, c)
		}
		sidecar := isSidecar(c)
		s := c.status.State
		due := resync || !now.Before(c.retryAt)
		switch {
		case s.Terminated != nil && s.Terminated.ExitCode == 0 && !sidecar:
			continue
		case s.Running != nil && sidecar:
			// A started sidecar runs beside what follows it: it is
			// probed, and restarted when it exits, without holding
			// the other containers back.
			if c.hasExited(now) {
				w.exitNow(pod, c, now)
				w.scheduleRestart(pod, c, now)
			} else {
				w.probe(pod, c, now)
			}
			continue
		case s.Terminated != nil && sidecar && !s.Terminated.StartedAt.IsZero():
			// It started once: what follows it has started too.
			if due {
				w.startOrBackOff(ctx, pod, c, now)
			}
			continue
		case s.Running != nil && c.hasExited(now):
			w.exitNow(pod, c, now)
			if c.status.State.Terminated != nil && c.status.State.Terminated.ExitCode == 0 {
				continue
			}
			w.scheduleRestart(pod, c, now)
			return false
		case s.Running != nil:
			return false
		case (s.Waiting != nil || w.wantsRestart(pod, c)) && due:
			w.startOrBackOff(ctx, pod, c, now)
			return false
		default:
			return false
		}
	}
	return true
}

// runContainers starts, stops and restarts the regular containers.
func (w *Worker) runContainers(ctx context.Context, pod *corev1.Pod, now time.Time, resync bool) {
	for _, c := range w.ctrs {
		if c.resume {
			w.resumeContainer(ctx, pod, c)
		}
		s := c.status.State
		due := resync || !now.Before(c.retryAt)
		switch {
		case s.Running != nil && c.hasExited(now):
			w.exitNow(pod, c, now)
			w.scheduleRestart(pod, c, now)
		case s.Running != nil:
			w.probe(pod, c, now)
		case (s.Waiting != nil || w.wantsRestart(pod, c)) && due:
			w.startOrBackOff(ctx, pod, c, now)
		}
	}
}

// wantsRestart reports whether an exited container is to be started again.
func (w *Worker) wantsRestart(pod *corev1.Pod, c *ctr) bool {
	t := c.status.State.Terminated
	return t != nil && shouldRestart(pod, c, t.ExitCode)
}

// scheduleRestart lets the pod sync again once the kubelet would notice
// the exit: its PLEG relists every second.
func (w *Worker) scheduleRestart(pod *corev1.Pod, c *ctr, now time.Time) {
	if w.wantsRestart(pod, c) {
		c.retryAt = now.Add(backoff.PLEGRelist)
	}
}

// lastExit is the most recent termination of a container, if any.
func lastExit(c *ctr) *corev1.ContainerStateTerminated {
	if t := c.status.State.Terminated; t != nil {
		return t
	}
	return c.status.LastTerminationState.Terminated
}

// startOrBackOff is the kubelet's doBackOff before a (re)start
// (k8s.io/kubernetes pkg/kubelet/kuberuntime/kuberuntime_manager.go): a
// container that exited restarts at once the first time; from the second
// exit on it waits out the crash loop back-off counted from its finish
// time (10 s, doubling to 5 min, forgotten after 10 quiet minutes).
func (w *Worker) startOrBackOff(ctx context.Context, pod *corev1.Pod, c *ctr, now time.Time) {
	if t := lastExit(c); t != nil {
		finished := t.FinishedAt.Time
		if c.crashBO.InBackOffSince(finished, now) {
			w.crashLoopBackOff(pod, c, t, finished.Add(c.crashBO.Window))
			return
		}
		c.crashBO.Next(finished, now)
	}
	w.startContainer(ctx, pod, c)
}

// crashLoopBackOff shows the container waiting for its back-off to end.
func (w *Worker) crashLoopBackOff(pod *corev1.Pod, c *ctr, t *corev1.ContainerStateTerminated, until time.Time) {
	c.retryAt = until
	c.status.LastTerminationState = corev1.ContainerState{Terminated: t}
	c.status.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
		Reason:  "CrashLoopBackOff",
		Message: fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", c.crashBO.Window, c.spec.Name, format.Pod(pod)),
	}}
	w.node.Recorder.Eventf(containerRef(pod, c), corev1.EventTypeWarning, "BackOff",
		"Back-off restarting failed container %s in pod %s", c.spec.Name, format.Pod(pod))
}

// ensureImage is the container's pull step (images.Manager.Ensure): a
// failed pull, or one in back-off, leaves the container waiting until the
// next sync; false also while the pod pauses for the pull.
func (w *Worker) ensureImage(ctx context.Context, pod *corev1.Pod, c *ctr) (cri.Pulled, bool) {
	r := w.node.Images.Ensure(ctx, images.Pull{
		Pod: pod, Container: &c.spec, Ref: containerRef(pod, c), State: &c.pull, Wait: pullWait{w},
	})
	if r.Waiting != nil {
		c.status.State = corev1.ContainerState{Waiting: r.Waiting}
		c.retryAt = r.RetryAt
	}
	return r.Image, r.OK
}

// startContainer pulls, creates and starts one container, recording the
// kubelet's events (kuberuntime_container.go startContainer); failures
// leave the container waiting with the reason the kubelet would show.
func (w *Worker) startContainer(ctx context.Context, pod *corev1.Pod, c *ctr) {
	pulled, ok := w.ensureImage(ctx, pod, c)
	if !ok {
		return
	}
	ref := containerRef(pod, c)
	if !w.containerConfigOK(pod, c, pulled) {
		return
	}
	launch, err := w.prepare(ctx, pod, c, pulled)
	if err != nil {
		w.configFailed(pod, c, err)
		return
	}
	restarts := c.status.RestartCount
	if lastExit(c) != nil {
		restarts++
	}
	id := cri.NewID(fmt.Sprintf("%s/%s/%d", pod.UID, c.spec.Name, restarts))
	rt := w.node.Host.Runtime()
	if err := rt.CreateContainer(pulled, id); err != nil {
		// The kubelet replaces the container ID with the name in events.
		w.node.Recorder.Eventf(ref, corev1.EventTypeWarning, "Failed", "Error: %s", replaceID(err.Error(), id, c.spec.Name))
		w.node.countStart(pod, c, "CreateContainerError")
		c.status.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CreateContainerError", Message: err.Error()}}
		c.retryAt = backoff.SyncRetryAt(w.clock.Now())
		return
	}
	w.node.Recorder.Event(ref, corev1.EventTypeNormal, "Created", "Container created")
	if t := c.status.State.Terminated; t != nil {
		c.status.LastTerminationState = corev1.ContainerState{Terminated: t}
	}
	c.status.RestartCount = restarts
	c.status.ContainerID = rt.IDPrefix() + id
	c.status.Image = pulled.Ref
	c.status.ImageID = pulled.ImageID
	now := w.clock.Now()
	err = w.startInRuntime(pod, c, pulled, id, launch)
	if err == nil {
		err = w.launch(pod, c, launch, id, now)
	}
	if err != nil {
		w.node.countStart(pod, c, "RunContainerError")
		w.startFailed(pod, c, id, err, now)
		return
	}
	w.node.countStart(pod, c, "")
	w.node.Recorder.Event(ref, corev1.EventTypeNormal, "Started", "Container started")
	c.status.Started = ptr.To(true)
	c.status.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now)}}
	c.readyAt = readyTime(c, now)
	c.status.Ready = (!c.init || isSidecar(c)) && !now.Before(c.readyAt) && c.spec.ReadinessProbe == nil
	w.postStart(pod, c, now)
}

// startInRuntime starts a created container and its process as the
// container's user (the Windows account a HostProcess logon group gets
// goes into the launch).
func (w *Worker) startInRuntime(pod *corev1.Pod, c *ctr, pulled cri.Pulled, id string, l *launchSpec) error {
	rt := w.node.Host.Runtime()
	if err := rt.StartContainer(pulled, id); err != nil {
		return err
	}
	user, known, account := w.node.runAsWindowsUser(pod, &c.spec, id)
	if err := rt.CreateProcess(id, user, known); err != nil {
		return err
	}
	if account != "" {
		l.sys.User.Account = account
	}
	return nil
}

// configFailed leaves a container waiting with CreateContainerConfigError:
// its environment or mounts could not be made (a missing ConfigMap key, a
// subPath that expands to an absolute path). The kubelet retries at each
// sync without back-off.
func (w *Worker) configFailed(pod *corev1.Pod, c *ctr, err error) {
	w.node.countStart(pod, c, "CreateContainerConfigError")
	w.node.Recorder.Eventf(containerRef(pod, c), corev1.EventTypeWarning, "Failed", "Error: %v", err)
	c.status.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CreateContainerConfigError", Message: err.Error()}}
	c.retryAt = backoff.SyncRetryAt(w.clock.Now())
}

// containerConfigOK runs the checks the kubelet makes while it builds the
// container's config; a failure leaves the container waiting with
// CreateContainerConfigError, retried at each sync without back-off
// (kuberuntime_container.go startContainer).
func (w *Worker) containerConfigOK(pod *corev1.Pod, c *ctr, pulled cri.Pulled) bool {
	err := w.containerConfigErr(pod, c, pulled)
	if err == nil {
		return true
	}
	w.configFailed(pod, c, err)
	return false
}

// containerConfigErr is the check of containerConfigOK without its
// effect on the container's status.
func (w *Worker) containerConfigErr(pod *corev1.Pod, c *ctr, pulled cri.Pulled) error {
	// winkube's own annotations (WK-1 … WK-6): a value the node cannot
	// follow is refused in the words lint and the webhook report.
	if errs := annotations.PodValueErrors(pod.Annotations); len(errs) > 0 {
		return errs[0]
	}
	if w.node.Host.Runtime().OS != "windows" {
		return nil
	}
	return winos.VerifyNonRoot(pod, &c.spec, winos.ImageUser(pulled.Ref))
}

// startFailed records a container that was created but did not start
// (IMG-4: HCS refuses an image of another Windows build). containerd
// reports it exited with code 128, reason StartError and a zero start
// time; the kubelet shows RunContainerError until its next sync.
func (w *Worker) startFailed(pod *corev1.Pod, c *ctr, id string, err error, now time.Time) {
	msg := err.Error()
	w.node.Recorder.Eventf(containerRef(pod, c), corev1.EventTypeWarning, "Failed", "Error: %s", replaceID(msg, id, c.spec.Name))
	term := &corev1.ContainerStateTerminated{
		ExitCode: cri.StartErrorExitCode, Reason: "StartError", Message: msg,
		StartedAt: metav1.Unix(0, 0), FinishedAt: metav1.NewTime(now), ContainerID: c.status.ContainerID,
	}
	c.status.Started = ptr.To(false)
	c.status.Ready = false
	c.status.State = corev1.ContainerState{Terminated: term}
	if !w.wantsRestart(pod, c) {
		return
	}
	c.status.LastTerminationState = corev1.ContainerState{Terminated: term}
	c.status.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "RunContainerError", Message: msg}}
	c.retryAt = now.Add(backoff.PLEGRelist)
}

// exit records a container's process ending by itself.
func (w *Worker) exit(pod *corev1.Pod, c *ctr, code int32, now time.Time) {
	reason := "Completed"
	if code != 0 {
		reason = "Error"
	}
	started := c.status.State.Running.StartedAt
	c.status.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: code, Reason: reason, StartedAt: started, FinishedAt: metav1.NewTime(now), ContainerID: c.status.ContainerID,
		Message: terminationMessage(c, code),
	}}
	// A completed init container reports ready, a stopped container not.
	c.status.Ready = c.init && code == 0
	c.status.Started = ptr.To(false)
	c.exitAt = time.Time{}
	c.stopProcess(now)
}

func shouldRestart(pod *corev1.Pod, c *ctr, code int32) bool {
	if c.ephemeral {
		return false
	}
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

// exitPlan is when a container without a program the emulation can run
// exits by itself (zero: never) and with which code: the pod's run-seconds
// and exit-code annotations decide, else the defaults of defaultExit.
func exitPlan(pod *corev1.Pod, c *ctr, started time.Time) (time.Time, int32) {
	return defaultExit(pod, c, started)
}

// steeredByAnnotations reports whether the pod sets its run time or exit
// code by annotation.
func steeredByAnnotations(pod *corev1.Pod) bool {
	_, secs := pod.Annotations[annotations.RunSeconds]
	_, code := pod.Annotations[annotations.ExitCode]
	return secs || code
}

// runsUntilDeleted is a sidecar or a container of a restartPolicy Always
// pod, which the emulation keeps running when its command is unknown.
func runsUntilDeleted(pod *corev1.Pod, c *ctr) bool {
	if c.init {
		return isSidecar(c)
	}
	return pod.Spec.RestartPolicy == corev1.RestartPolicyAlways || pod.Spec.RestartPolicy == ""
}

func isSidecar(c *ctr) bool {
	return c.spec.RestartPolicy != nil && *c.spec.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// defaultExit is the behaviour the annotations describe: init containers
// finish after initRunSeconds, sidecars and containers of restartPolicy
// Always pods run until deleted, the others exit after run-seconds
// (default defaultRunSeconds) with the exit-code annotation.
func defaultExit(pod *corev1.Pod, c *ctr, started time.Time) (time.Time, int32) {
	if c.init && !isSidecar(c) {
		return started.Add(seconds(initRunSeconds)), 0
	}
	secs, set := runSeconds(pod)
	if c.init || (!set && runsUntilDeleted(pod, c)) {
		return time.Time{}, 0
	}
	return started.Add(seconds(secs)), exitCode(pod)
}

func runSeconds(pod *corev1.Pod) (float64, bool) {
	if v, set, err := annotations.RunSecondsOf(pod.Annotations); err == nil && set {
		return v, true
	}
	return defaultRunSeconds, false
}

func exitCode(pod *corev1.Pod) int32 {
	code, _, _ := annotations.ExitCodeOf(pod.Annotations)
	return code
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// readyTime honours readinessProbe.initialDelaySeconds.
func readyTime(c *ctr, started time.Time) time.Time {
	if p := c.spec.ReadinessProbe; p != nil {
		return started.Add(time.Duration(p.InitialDelaySeconds) * time.Second)
	}
	return started
}

// containerRef is the object reference of a container's events.
func containerRef(pod *corev1.Pod, c *ctr) *corev1.ObjectReference {
	field := fmt.Sprintf("spec.containers{%s}", c.spec.Name)
	switch {
	case c.init:
		field = fmt.Sprintf("spec.initContainers{%s}", c.spec.Name)
	case c.ephemeral:
		field = fmt.Sprintf("spec.ephemeralContainers{%s}", c.spec.Name)
	}
	return &corev1.ObjectReference{
		Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name,
		UID: pod.UID, ResourceVersion: pod.ResourceVersion, FieldPath: field,
	}
}
