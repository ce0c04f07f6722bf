package podworker

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/winkube/winkube/pkg/node/internal/admission"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
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

// render builds the pod status from the emulated containers.
func (w *Worker) render(pod *corev1.Pod) corev1.PodStatus {
	phase := w.phase(pod)
	if w.deadlineHit {
		phase = corev1.PodFailed
	}
	st := corev1.PodStatus{
		// PodObservedGenerationTracking is GA and locked on in 1.36: the
		// status manager stamps the pod's generation on every status.
		ObservedGeneration: pod.Generation,
		Phase:              phase,
		HostIP:             w.node.IP,
		HostIPs:            []corev1.HostIP{{IP: w.node.IP}},
		StartTime:          w.startTime,
		QOSClass:           pod.Status.QOSClass,
	}
	if w.deadlineHit {
		st.Reason, st.Message = reasonDeadlineExceeded, deadlineMessage
	}
	switch {
	case w.ip.IsValid():
		st.PodIP = w.ip.String()
		st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}
	case w.sandboxReady:
		st.PodIP = w.node.IP // host network
		st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}
	}
	initDone := len(incomplete(w.initCtrs)) == 0
	st.InitContainerStatuses = statuses(w.initCtrs, "PodInitializing")
	st.ContainerStatuses = statuses(w.ctrs, creatingReason(initDone))
	st.EphemeralContainerStatuses = statuses(w.ephCtrs, "ContainerCreating")
	existing := pod.Status.Conditions
	if w.written != nil {
		// The informer may lag behind our last write; trust what we wrote.
		existing = mergeConditions(existing, w.written.Conditions)
	}
	// The resize conditions come and go with the resize: never keep an
	// old one, and put the current ones before the other owned ones, as
	// generateAPIPodStatus orders them.
	existing = slices.DeleteFunc(slices.Clone(existing), func(c corev1.PodCondition) bool { return isResizeCondition(c.Type) })
	owned := append(w.resizeConditions(isTerminalPhase(phase)), w.conditions(pod, phase)...)
	st.Conditions = mergeConditions(existing, owned)
	w.setStatusResources(&st, pod)
	return st
}

// statuses copies the container statuses; containers not yet started wait
// with `pending` as the kubelet shows them.
func statuses(ctrs []*ctr, pending string) []corev1.ContainerStatus {
	var out []corev1.ContainerStatus
	for _, c := range ctrs {
		s := *c.status.DeepCopy()
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

// phase follows the kubelet's getPhase for the cases the emulator produces.
func (w *Worker) phase(pod *corev1.Pod) corev1.PodPhase {
	for _, c := range w.initCtrs {
		if c.spec.RestartPolicy != nil {
			continue // sidecars do not gate initialisation
		}
		t := c.status.State.Terminated
		if t != nil && t.ExitCode != 0 && pod.Spec.RestartPolicy == corev1.RestartPolicyNever {
			return corev1.PodFailed
		}
		if t == nil || t.ExitCode != 0 {
			return corev1.PodPending
		}
	}
	running, waiting, stopped, succeeded := 0, 0, 0, 0
	for _, c := range w.ctrs {
		s := c.status
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
	case stopped > 0 && allTerminated(w.ctrs) && pod.DeletionTimestamp != nil:
		// A deleted pod is terminal whatever its restart policy:
		// Succeeded when every container exited 0, else Failed
		// (kubelet_pods.go getPhase with podIsTerminal).
		if stopped == succeeded {
			return corev1.PodSucceeded
		}
		return corev1.PodFailed
	case stopped == succeeded && stopped > 0 && pod.Spec.RestartPolicy != corev1.RestartPolicyAlways:
		return corev1.PodSucceeded
	case pod.Spec.RestartPolicy == corev1.RestartPolicyNever && stopped > 0 && allTerminated(w.ctrs):
		return corev1.PodFailed
	default:
		return corev1.PodRunning
	}
}

func allTerminated(ctrs []*ctr) bool {
	for _, c := range ctrs {
		if c.status.State.Terminated == nil {
			return false
		}
	}
	return true
}

// conditions are the conditions the kubelet owns, in the order
// generateAPIPodStatus appends them (pkg/kubelet/kubelet_pods.go):
// PodReadyToStartContainers, Initialized, Ready, ContainersReady,
// PodScheduled. Each carries the pod's generation.
func (w *Worker) conditions(pod *corev1.Pod, phase corev1.PodPhase) []corev1.PodCondition {
	terminal := isTerminalPhase(phase)
	sandbox := cond(corev1.PodReadyToStartContainers, w.sandboxReady && !terminal, "", "")
	initialized := cond(corev1.PodInitialized, true, "", "")
	if pending := incomplete(w.initCtrs); phase == corev1.PodSucceeded {
		initialized.Reason = reasonPodCompleted
	} else if len(pending) > 0 {
		initialized = cond(corev1.PodInitialized, false, reasonContainersNotInitialized,
			fmt.Sprintf("containers with incomplete status: [%s]", strings.Join(pending, " ")))
	}
	ready := cond(corev1.ContainersReady, true, "", "")
	switch unready := unready(append(sidecars(w.initCtrs), w.ctrs...)); {
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

func incomplete(ctrs []*ctr) []string {
	var out []string
	for _, c := range ctrs {
		t := c.status.State.Terminated
		sidecarUp := c.spec.RestartPolicy != nil && c.status.State.Running != nil
		if !sidecarUp && (t == nil || t.ExitCode != 0) {
			out = append(out, c.spec.Name)
		}
	}
	return out
}

// sidecars are the restartable init containers, whose readiness gates
// the pod's as the regular containers' does (GenerateContainersReadyCondition
// lists them first).
func sidecars(inits []*ctr) []*ctr {
	var out []*ctr
	for _, c := range inits {
		if isSidecar(c) {
			out = append(out, c)
		}
	}
	return out
}

func unready(ctrs []*ctr) []string {
	var out []string
	for _, c := range ctrs {
		if !c.status.Ready {
			out = append(out, c.spec.Name)
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
		if old, ok := byType[c.Type]; ok && old.Status == c.Status && !old.LastTransitionTime.IsZero() && !isResizeCondition(c.Type) {
			c.LastTransitionTime = old.LastTransitionTime
		} else if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = now
		}
		if !isResizeCondition(c.Type) {
			c.LastProbeTime = metav1.Time{} // resize conditions carry one
		}
		out = append(out, c)
	}
	return out
}

// rejectedStatus is the status of a pod that admission rejected, as the
// kubelet's rejectPod sets it; the status manager adds the start time and
// the observed generation (pkg/kubelet/kubelet.go rejectPod,
// status/status_manager.go updateStatusInternal).
func rejectedStatus(pod *corev1.Pod, reason, message string) corev1.PodStatus {
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

// jsonMergePatchAnnotation builds a merge patch that sets one annotation.
func jsonMergePatchAnnotation(key, value string) ([]byte, error) {
	b, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{key: value}}})
	if err != nil {
		return nil, fmt.Errorf("encode annotation patch: %w", err)
	}
	return b, nil
}
