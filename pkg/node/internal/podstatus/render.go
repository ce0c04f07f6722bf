// Package podstatus is the pod status the emulated kubelet reports, as
// its status generator and status manager make it: the phase, the
// conditions and container statuses rendered from the containers
// (render.go), the resources of an in-place resize (resources.go), and
// the writes to the API server, patched against what was last written
// and retried after a failure (writer.go). It is given what it uses,
// never the pod worker.
package podstatus

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/node/internal/admission"
)

// Pod condition reasons, as the kubelet's status generator words them
// (pkg/kubelet/status/generate.go).
const (
	reasonContainersNotInitialized = "ContainersNotInitialized"
	reasonContainersNotReady       = "ContainersNotReady"
	reasonPodCompleted             = "PodCompleted"
	reasonPodFailed                = "PodFailed"
	reasonReadinessGatesNotReady   = "ReadinessGatesNotReady"
)

// Container is one container as the status shows it: its spec (the
// allocation, after an in-place resize) and its status.
type Container struct {
	Spec   *corev1.Container
	Status *corev1.ContainerStatus
}

// Pod is what a pod's status is rendered from, beside the pod itself.
type Pod struct {
	// HostIP is the node's address; PodIP the pod's (the node's on the
	// host network), empty before its sandbox exists.
	HostIP    string
	PodIP     string
	StartTime *metav1.Time
	// SandboxReady: the pod's sandbox runs.
	SandboxReady bool
	// FailedReason and FailedMessage, when set, fail the pod whatever its
	// containers say (activeDeadlineSeconds).
	FailedReason, FailedMessage string
	// Init, Regular and Ephemeral are the pod's containers, in spec order.
	Init, Regular, Ephemeral []Container
	// Written is the status last written, nil before the first write.
	Written *corev1.PodStatus
	// ResizeConditions are the pod's resize conditions, pending first;
	// terminal says the phase is terminal, which ends a resize.
	ResizeConditions func(terminal bool) []corev1.PodCondition
}

// Render builds the pod status from the emulated containers, without the
// resources (ContainerResources, PodResources).
func Render(pod *corev1.Pod, in Pod) corev1.PodStatus {
	phase := podPhase(pod, in)
	if in.FailedReason != "" {
		phase = corev1.PodFailed
	}
	st := corev1.PodStatus{
		// PodObservedGenerationTracking is GA and locked on in 1.36: the
		// status manager stamps the pod's generation on every status.
		ObservedGeneration: pod.Generation,
		Phase:              phase,
		HostIP:             in.HostIP,
		HostIPs:            []corev1.HostIP{{IP: in.HostIP}},
		StartTime:          in.StartTime,
		QOSClass:           pod.Status.QOSClass,
	}
	if in.FailedReason != "" {
		st.Reason, st.Message = in.FailedReason, in.FailedMessage
	}
	if in.PodIP != "" {
		st.PodIP = in.PodIP
		st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}
	}
	initDone := len(incomplete(in.Init)) == 0
	st.InitContainerStatuses = statuses(in.Init, "PodInitializing")
	st.ContainerStatuses = statuses(in.Regular, creatingReason(initDone))
	st.EphemeralContainerStatuses = statuses(in.Ephemeral, "ContainerCreating")
	existing := pod.Status.Conditions
	if in.Written != nil {
		// The informer may lag behind our last write; trust what we wrote.
		existing = mergeConditions(existing, in.Written.Conditions)
	}
	// The resize conditions come and go with the resize: never keep an
	// old one, and put the current ones before the other owned ones, as
	// generateAPIPodStatus orders them.
	existing = slices.DeleteFunc(slices.Clone(existing), func(c corev1.PodCondition) bool { return IsResizeCondition(c.Type) })
	var resize []corev1.PodCondition
	if in.ResizeConditions != nil {
		resize = in.ResizeConditions(IsTerminalPhase(phase))
	}
	owned := append(resize, conditions(pod, phase, in)...)
	st.Conditions = mergeConditions(existing, owned)
	return st
}

// statuses copies the container statuses; containers not yet started wait
// with `pending` as the kubelet shows them.
func statuses(ctrs []Container, pending string) []corev1.ContainerStatus {
	var out []corev1.ContainerStatus
	for _, c := range ctrs {
		s := *c.Status.DeepCopy()
		if s.State.Waiting != nil && s.State.Waiting.Reason == "PodInitializing" {
			s.State.Waiting.Reason = pending
		}
		out = append(out, s)
	}
	return out
}

// creatingReason is the waiting reason of regular containers not started
// yet: PodInitializing while init containers run, ContainerCreating after.
func creatingReason(initDone bool) string {
	if initDone {
		return "ContainerCreating"
	}
	return "PodInitializing"
}

// podPhase follows the kubelet's getPhase for the cases the emulator
// produces.
func podPhase(pod *corev1.Pod, in Pod) corev1.PodPhase {
	for _, c := range in.Init {
		if c.Spec.RestartPolicy != nil {
			continue // sidecars do not gate initialisation
		}
		t := c.Status.State.Terminated
		if t != nil && t.ExitCode != 0 && pod.Spec.RestartPolicy == corev1.RestartPolicyNever {
			return corev1.PodFailed
		}
		if t == nil || t.ExitCode != 0 {
			return corev1.PodPending
		}
	}
	running, waiting, stopped, succeeded := 0, 0, 0, 0
	for _, c := range in.Regular {
		s := *c.Status
		switch {
		case s.State.Running != nil:
			running++
		case s.State.Terminated != nil:
			stopped++
			if s.State.Terminated.ExitCode == 0 {
				succeeded++
			}
		case s.LastTerminationState.Terminated != nil:
			stopped++ // restarting after an exit
		default:
			waiting++
		}
	}
	switch {
	case waiting > 0:
		return corev1.PodPending
	case running > 0:
		return corev1.PodRunning
	case stopped > 0 && allTerminated(in.Regular) && pod.DeletionTimestamp != nil:
		// A deleted pod is terminal whatever its restart policy:
		// Succeeded when every container exited 0, else Failed
		// (kubelet_pods.go getPhase with podIsTerminal).
		if stopped == succeeded {
			return corev1.PodSucceeded
		}
		return corev1.PodFailed
	case stopped == succeeded && stopped > 0 && pod.Spec.RestartPolicy != corev1.RestartPolicyAlways:
		return corev1.PodSucceeded
	case pod.Spec.RestartPolicy == corev1.RestartPolicyNever && stopped > 0 && allTerminated(in.Regular):
		return corev1.PodFailed
	default:
		return corev1.PodRunning
	}
}

func allTerminated(ctrs []Container) bool {
	for _, c := range ctrs {
		if c.Status.State.Terminated == nil {
			return false
		}
	}
	return true
}

// conditions are the conditions the kubelet owns, in the order
// generateAPIPodStatus appends them (pkg/kubelet/kubelet_pods.go):
// PodReadyToStartContainers, Initialized, Ready, ContainersReady,
// PodScheduled. Each carries the pod's generation.
func conditions(pod *corev1.Pod, phase corev1.PodPhase, in Pod) []corev1.PodCondition {
	terminal := IsTerminalPhase(phase)
	sandbox := cond(corev1.PodReadyToStartContainers, in.SandboxReady && !terminal, "", "")
	initialized := cond(corev1.PodInitialized, true, "", "")
	if pending := incomplete(in.Init); phase == corev1.PodSucceeded {
		initialized.Reason = reasonPodCompleted
	} else if len(pending) > 0 {
		initialized = cond(corev1.PodInitialized, false, reasonContainersNotInitialized,
			fmt.Sprintf("containers with incomplete status: [%s]", strings.Join(pending, " ")))
	}
	ready := cond(corev1.ContainersReady, true, "", "")
	switch unready := unready(append(sidecars(in.Init), in.Regular...)); {
	case phase == corev1.PodSucceeded:
		ready = cond(corev1.ContainersReady, false, reasonPodCompleted, "")
	case phase == corev1.PodFailed:
		ready = cond(corev1.ContainersReady, false, reasonPodFailed, "")
	case len(unready) > 0:
		ready = cond(corev1.ContainersReady, false, reasonContainersNotReady,
			fmt.Sprintf("containers with unready status: [%s]", strings.Join(unready, " ")))
	}
	podReady := ready
	podReady.Type = corev1.PodReady
	if ready.Status == corev1.ConditionTrue {
		if msg := gatesNotReady(pod); msg != "" {
			podReady = cond(corev1.PodReady, false, reasonReadinessGatesNotReady, msg)
		}
	}
	scheduled := cond(corev1.PodScheduled, true, "", "")
	out := []corev1.PodCondition{sandbox, initialized, podReady, ready, scheduled}
	for i := range out {
		out[i].ObservedGeneration = pod.Generation
	}
	return out
}

func cond(t corev1.PodConditionType, ok bool, reason, msg string) corev1.PodCondition {
	s := corev1.ConditionFalse
	if ok {
		s = corev1.ConditionTrue
	}
	return corev1.PodCondition{Type: t, Status: s, Reason: reason, Message: msg}
}

func incomplete(ctrs []Container) []string {
	var out []string
	for _, c := range ctrs {
		t := c.Status.State.Terminated
		sidecarUp := c.Spec.RestartPolicy != nil && c.Status.State.Running != nil
		if !sidecarUp && (t == nil || t.ExitCode != 0) {
			out = append(out, c.Spec.Name)
		}
	}
	return out
}

// sidecars are the restartable init containers, whose readiness gates
// the pod's as the regular containers' does (GenerateContainersReadyCondition
// lists them first).
func sidecars(inits []Container) []Container {
	var out []Container
	for _, c := range inits {
		if c.Spec.RestartPolicy != nil && *c.Spec.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			out = append(out, c)
		}
	}
	return out
}

func unready(ctrs []Container) []string {
	var out []string
	for _, c := range ctrs {
		if !c.Status.Ready {
			out = append(out, c.Spec.Name)
		}
	}
	return out
}

// gatesNotReady words the first readiness gate whose condition is not True.
func gatesNotReady(pod *corev1.Pod) string {
	for _, g := range pod.Spec.ReadinessGates {
		found := false
		for _, c := range pod.Status.Conditions {
			if c.Type == g.ConditionType {
				found = true
				if c.Status != corev1.ConditionTrue {
					return fmt.Sprintf("the status of pod readiness gate %q is not \"True\", but %v", g.ConditionType, c.Status)
				}
			}
		}
		if !found {
			return fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", g.ConditionType)
		}
	}
	return ""
}

// mergeConditions keeps the conditions the kubelet does not own
// (DisruptionTarget, readiness gates) in front, as the status manager's
// mergePodStatus does, and appends the owned ones in their order.
// Transition times move only when a status changes.
func mergeConditions(existing, owned []corev1.PodCondition) []corev1.PodCondition {
	// The API keeps whole seconds: a time with more would make every
	// status read back from it differ from the one written.
	now := metav1.Now().Rfc3339Copy()
	byType := map[corev1.PodConditionType]corev1.PodCondition{}
	for _, c := range existing {
		byType[c.Type] = c
	}
	ownedTypes := map[corev1.PodConditionType]bool{}
	for _, c := range owned {
		ownedTypes[c.Type] = true
	}
	out := make([]corev1.PodCondition, 0, len(existing)+len(owned))
	for _, c := range existing {
		if !ownedTypes[c.Type] {
			out = append(out, c)
		}
	}
	for _, c := range owned {
		if old, ok := byType[c.Type]; ok && old.Status == c.Status && !old.LastTransitionTime.IsZero() && !IsResizeCondition(c.Type) {
			c.LastTransitionTime = old.LastTransitionTime
		} else if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = now
		}
		if !IsResizeCondition(c.Type) {
			c.LastProbeTime = metav1.Time{} // resize conditions carry one
		}
		out = append(out, c)
	}
	return out
}

// RejectedStatus is the status of a pod that admission rejected, as the
// kubelet's rejectPod sets it; the status manager adds the start time and
// the observed generation (pkg/kubelet/kubelet.go rejectPod,
// status/status_manager.go updateStatusInternal).
func RejectedStatus(pod *corev1.Pod, reason, message string) corev1.PodStatus {
	start := pod.Status.StartTime
	if start == nil {
		start = ptr.To(metav1.Now())
	}
	return corev1.PodStatus{
		ObservedGeneration: pod.Generation,
		Phase:              corev1.PodFailed,
		Reason:             reason,
		Message:            admission.RejectedPrefix + message,
		QOSClass:           pod.Status.QOSClass,
		StartTime:          start,
	}
}
