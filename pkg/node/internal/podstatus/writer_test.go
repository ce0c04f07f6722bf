package podstatus

import (
	"encoding/json"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/pkg/apis/annotations"
)

// The status patch goes from what the API last returned to the new
// status, carries the pod's UID as a precondition (a new pod of the same
// name is not patched) and, while pending, the Windows resources
// annotation; applied to the old status it gives the new one.
func TestStatusPatch(t *testing.T) {
	base := corev1.PodStatus{Phase: corev1.PodPending, HostIP: "10.0.0.4"}
	st := corev1.PodStatus{Phase: corev1.PodRunning, HostIP: "10.0.0.4", PodIP: "10.244.1.7"}
	patch, err := statusPatch("uid-1", base, st, "cpu-maximum=5000")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Metadata struct {
			UID         string            `json:"uid"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(patch, &got); err != nil {
		t.Fatal(err)
	}
	if got.Metadata.UID != "uid-1" || got.Metadata.Annotations[annotations.WindowsResources] != "cpu-maximum=5000" {
		t.Errorf("patch metadata %+v", got.Metadata)
	}
	pod := patched(t, corev1.Pod{Status: base}, patch)
	if pod.Status.Phase != corev1.PodRunning || pod.Status.PodIP != "10.244.1.7" {
		t.Errorf("patched status %+v", pod.Status)
	}
	plain, err := statusPatch("uid-1", base, st, "")
	var m map[string]map[string]any
	if err != nil || json.Unmarshal(plain, &m) != nil {
		t.Fatalf("patch without annotation: %s, %v", plain, err)
	}
	if _, ok := m["metadata"]["annotations"]; ok {
		t.Error("a patch without a pending annotation carries one")
	}
}

// Once the watch has brought back the writer's own write, a later
// version whose status differs was changed by someone else (the node
// lifecycle controller marking the pod not Ready): the writer then
// writes again. Versions before its write came back do not count.
func TestObserveNoticesAnotherWriter(t *testing.T) {
	w := NewWriter(Config{Clock: clocktesting.NewFakeClock(time.Now())})
	mine := &corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	theirs := mine.DeepCopy()
	theirs.Conditions[0].Status = corev1.ConditionFalse
	version := func(rv string, st *corev1.PodStatus) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv}, Status: *st}
	}
	w.Observe(version("1", theirs))
	w.noteWritten("2", mine)
	w.Observe(version("1", theirs)) // an older version arriving late
	if w.statusDrifted() {
		t.Fatal("a version before the write came back counted as drift")
	}
	w.Observe(version("2", mine))
	w.Observe(version("3", mine)) // another change, same status
	if w.statusDrifted() {
		t.Fatal("a later version with the same status counted as drift")
	}
	w.Observe(version("4", theirs))
	if !w.statusDrifted() {
		t.Fatal("a status changed by someone else went unnoticed")
	}
	w.noteWritten("5", mine)
	if w.statusDrifted() {
		t.Error("drift stays after the writer wrote again")
	}
}

// A failed write is tried again after the status manager's sync period;
// with nothing unwritten there is no retry.
func TestRetryAfterAFailedWrite(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w := NewWriter(Config{Clock: clk})
	if !w.Retry().IsZero() || w.Unwritten() {
		t.Fatal("a retry with nothing unwritten")
	}
	w.unwritten = &corev1.PodStatus{Phase: corev1.PodFailed}
	if got, want := w.Retry(), clk.Now().Add(RetryPeriod); !got.Equal(want) {
		t.Errorf("retry at %v, want %v", got, want)
	}
}

// A readiness gate's condition belongs to whoever sets it. The status the
// worker renders carries it as the informer last showed it, which may be
// older than the owner's latest write: the patch must leave it out, so
// that the owner's "False" is not overwritten by a stale "True" (upstream
// e2e "Pods should support pod readiness gates").
func TestStatusPatchLeavesOtherOwnersConditions(t *testing.T) {
	gate := corev1.PodConditionType("k8s.io/test-condition1")
	base := corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
		{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: reasonReadinessGatesNotReady},
	}}
	st := corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
		{Type: gate, Status: corev1.ConditionTrue},
		{Type: corev1.PodReady, Status: corev1.ConditionTrue},
	}}
	patch, err := statusPatch("uid-1", othersFrom(base, st), st, "")
	if err != nil {
		t.Fatal(err)
	}
	// The owner has meanwhile set its gate to False.
	server := corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
		{Type: gate, Status: corev1.ConditionFalse},
		{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: reasonReadinessGatesNotReady},
	}}}
	pod := patched(t, server, patch)
	got := map[corev1.PodConditionType]corev1.ConditionStatus{}
	for _, c := range pod.Status.Conditions {
		got[c.Type] = c.Status
	}
	if got[gate] != corev1.ConditionFalse || got[corev1.PodReady] != corev1.ConditionTrue {
		t.Errorf("after the patch %s: conditions %v, want the gate False (its owner's) and Ready True (the kubelet's)", patch, got)
	}
}

// patched is pod as the API server leaves it after the status patch, a
// strategic merge patch.
func patched(t *testing.T, pod corev1.Pod, patch []byte) corev1.Pod {
	t.Helper()
	old, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	applied, err := strategicpatch.StrategicMergePatch(old, patch, corev1.Pod{})
	if err != nil {
		t.Fatal(err)
	}
	var out corev1.Pod
	if err := json.Unmarshal(applied, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
