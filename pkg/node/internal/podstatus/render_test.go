package podstatus

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// workerWith is what a pod worker renders the status of pod from, its
// sandbox ready and its containers in the given states.
func workerWith(pod *corev1.Pod, states ...corev1.ContainerState) Pod {
	in := Pod{SandboxReady: true}
	for i, st := range states {
		c := Container{Spec: &pod.Spec.Containers[i], Status: &corev1.ContainerStatus{Name: pod.Spec.Containers[i].Name}}
		c.Status.State = st
		c.Status.Ready = st.Running != nil
		in.Regular = append(in.Regular, c)
	}
	return in
}

func twoContainerPod(policy corev1.RestartPolicy) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Generation: 3},
		Spec: corev1.PodSpec{RestartPolicy: policy, Containers: []corev1.Container{
			{Name: "a", Image: "busybox"}, {Name: "b", Image: "busybox"},
		}},
	}
}

var (
	running = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}
	exited0 = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}
	exited1 = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}
	killed  = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error"}}
)

func condTypes(conds []corev1.PodCondition) []corev1.PodConditionType {
	var out []corev1.PodConditionType
	for _, c := range conds {
		out = append(out, c.Type)
	}
	return out
}

// The kubelet appends its conditions in this order, each stamped with the
// pod's generation (k8s.io/kubernetes v1.36 pkg/kubelet/kubelet_pods.go
// generateAPIPodStatus; PodObservedGenerationTracking is GA in 1.36).
func TestPodConditionOrderAndGeneration(t *testing.T) {
	pod := twoContainerPod(corev1.RestartPolicyAlways)
	w := workerWith(pod, running, running)
	got := conditions(pod, corev1.PodRunning, w)
	want := []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled}
	if gt := condTypes(got); len(gt) != len(want) {
		t.Fatalf("condition types = %v, want %v", gt, want)
	}
	for i, c := range got {
		if c.Type != want[i] {
			t.Errorf("condition %d = %s, want %s", i, c.Type, want[i])
		}
		if c.ObservedGeneration != 3 || c.Status != corev1.ConditionTrue {
			t.Errorf("%s: observedGeneration %d status %s, want 3 True", c.Type, c.ObservedGeneration, c.Status)
		}
	}
}

// Conditions the kubelet does not own stay in front of its own, as the
// status manager's mergePodStatus keeps them (pkg/kubelet/status/status_manager.go).
func TestMergeConditionsKeepsOthersFirst(t *testing.T) {
	earlier := metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	existing := []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: earlier},
		{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "DeletionByTaintManager"},
	}
	pod := twoContainerPod(corev1.RestartPolicyAlways)
	got := mergeConditions(existing, conditions(pod, corev1.PodRunning, workerWith(pod, running, running)))
	if got[0].Type != corev1.DisruptionTarget || got[len(got)-1].Type != corev1.PodScheduled {
		t.Fatalf("merged order = %v, want DisruptionTarget first and PodScheduled last", condTypes(got))
	}
	if !got[len(got)-1].LastTransitionTime.Equal(&earlier) {
		t.Errorf("PodScheduled transition time moved: %v", got[len(got)-1].LastTransitionTime)
	}
}

// Terminal pods: Initialized True with PodCompleted on Succeeded, Ready and
// ContainersReady False with PodCompleted or PodFailed
// (pkg/kubelet/status/generate.go).
func TestTerminalConditionReasons(t *testing.T) {
	for _, tc := range []struct {
		phase          corev1.PodPhase
		states         []corev1.ContainerState
		initReason     string
		notReadyReason string
	}{
		{corev1.PodSucceeded, []corev1.ContainerState{exited0, exited0}, "PodCompleted", "PodCompleted"},
		{corev1.PodFailed, []corev1.ContainerState{exited0, exited1}, "", "PodFailed"},
	} {
		pod := twoContainerPod(corev1.RestartPolicyNever)
		w := workerWith(pod, tc.states...)
		if got := podPhase(pod, w); got != tc.phase {
			t.Fatalf("phase = %s, want %s", got, tc.phase)
		}
		for _, c := range conditions(pod, tc.phase, w) {
			switch c.Type {
			case corev1.PodInitialized:
				if c.Status != corev1.ConditionTrue || c.Reason != tc.initReason {
					t.Errorf("%s: Initialized = %s/%q, want True/%q", tc.phase, c.Status, c.Reason, tc.initReason)
				}
			case corev1.PodReady, corev1.ContainersReady:
				if c.Status != corev1.ConditionFalse || c.Reason != tc.notReadyReason {
					t.Errorf("%s: %s = %s/%q, want False/%q", tc.phase, c.Type, c.Status, c.Reason, tc.notReadyReason)
				}
			case corev1.PodReadyToStartContainers:
				if c.Status != corev1.ConditionFalse {
					t.Errorf("%s: PodReadyToStartContainers = %s, want False", tc.phase, c.Status)
				}
			}
		}
	}
}

// A deleted pod is terminal whatever its restart policy: Succeeded when
// every container exited 0, Failed otherwise (kubelet_pods.go getPhase
// with podIsTerminal).
func TestDeletedPodPhase(t *testing.T) {
	for _, tc := range []struct {
		states []corev1.ContainerState
		want   corev1.PodPhase
	}{
		{[]corev1.ContainerState{exited0, exited0}, corev1.PodSucceeded},
		{[]corev1.ContainerState{exited0, killed}, corev1.PodFailed},
	} {
		pod := twoContainerPod(corev1.RestartPolicyAlways)
		pod.DeletionTimestamp = ptr.To(metav1.Now())
		if got := podPhase(pod, workerWith(pod, tc.states...)); got != tc.want {
			t.Errorf("deleted pod with exit codes %d, %d: phase %s, want %s",
				tc.states[0].Terminated.ExitCode, tc.states[1].Terminated.ExitCode, got, tc.want)
		}
	}
	// Not deleted, restartPolicy Always: the containers restart.
	pod := twoContainerPod(corev1.RestartPolicyAlways)
	if got := podPhase(pod, workerWith(pod, exited0, exited0)); got != corev1.PodRunning {
		t.Errorf("running pod with exited containers: phase %s, want Running", got)
	}
}

// A rejected pod gets a start time and the observed generation from the
// status manager (pkg/kubelet/kubelet.go rejectPod,
// pkg/kubelet/status/status_manager.go updateStatusInternal).
// rule: KLT-4
func TestRejectedStatus(t *testing.T) {
	pod := twoContainerPod(corev1.RestartPolicyAlways)
	pod.Status.QOSClass = corev1.PodQOSBestEffort
	st := RejectedStatus(pod, "NodeAffinity", "Predicate NodeAffinity failed")
	if st.StartTime == nil || st.StartTime.IsZero() {
		t.Errorf("startTime not set: %+v", st)
	}
	if st.ObservedGeneration != 3 || st.Phase != corev1.PodFailed || st.Reason != "NodeAffinity" ||
		st.Message != "Pod was rejected: Predicate NodeAffinity failed" || st.QOSClass != corev1.PodQOSBestEffort {
		t.Errorf("rejected status = %+v", st)
	}
	earlier := metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	pod.Status.StartTime = &earlier
	if st := RejectedStatus(pod, "NodeAffinity", "x"); !st.StartTime.Equal(&earlier) {
		t.Errorf("startTime %v replaced the existing %v", st.StartTime, earlier)
	}
}

// A sidecar (restartable init container) that is not ready keeps the pod
// from being Ready, named first, as GenerateContainersReadyCondition
// does; a ready one does not.
func TestUnreadySidecarGatesPodReady(t *testing.T) {
	pod := twoContainerPod(corev1.RestartPolicyAlways)
	pod.Spec.InitContainers = []corev1.Container{{Name: "side", Image: "busybox", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
	w := workerWith(pod, running, running)
	side := Container{Spec: &pod.Spec.InitContainers[0], Status: &corev1.ContainerStatus{Name: "side", State: running}}
	w.Init = []Container{side}
	for _, sideReady := range []bool{false, true} {
		side.Status.Ready = sideReady
		conds := conditions(pod, corev1.PodRunning, w)
		ready := conds[2]
		if (ready.Status == corev1.ConditionTrue) != sideReady {
			t.Errorf("sidecar ready %v: pod Ready %s (%s)", sideReady, ready.Status, ready.Message)
		}
		if !sideReady && ready.Message != "containers with unready status: [side]" {
			t.Errorf("message %q", ready.Message)
		}
	}
}
