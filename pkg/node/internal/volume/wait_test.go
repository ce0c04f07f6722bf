package volume

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
)

func waitPod() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "u1"}}
}

// A volume that fails to mount keeps the sandbox back and gets one
// FailedMount event per attempt; the next attempt waits out the
// volume manager's back-off, and the pod goes ahead once it mounts.
// rule: STO-2
func TestWaitRetriesAFailedMount(t *testing.T) {
	rec := record.NewFakeRecorder(10)
	failing := true
	calls := 0
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w := Wait{Recorder: rec, Clock: clk, Issues: func(context.Context, *corev1.Pod, func(string) bool) []Issue {
		calls++
		if !failing {
			return nil
		}
		return []Issue{{Name: "data", Reason: ReasonFailedMount, Message: "MountVolume.SetUp failed for volume \"data\""}}
	}}
	ctx, pod := context.Background(), waitPod()
	if w.Ready(ctx, pod) {
		t.Fatal("Ready with a volume that fails to mount")
	}
	if ev := <-rec.Events; !strings.HasPrefix(ev, "Warning FailedMount MountVolume.SetUp failed") {
		t.Errorf("event %q", ev)
	}
	// The next attempt is due only after the back-off: a look before it
	// does not check the volumes again.
	if w.Ready(ctx, pod) || calls != 1 {
		t.Errorf("a look before the retry checked the volumes (%d checks)", calls)
	}
	if wake := w.Wake(); wake.IsZero() {
		t.Error("no wake time while a mount is retried")
	}
	// The retry comes after the back-off's first 500 ms on the
	// worker's clock, not the machine's.
	failing = false
	clk.SetTime(clk.Now().Add(499 * time.Millisecond))
	if w.Ready(ctx, pod) || calls != 1 {
		t.Errorf("the retry came before its 500 ms back-off (%d checks)", calls)
	}
	clk.SetTime(clk.Now().Add(time.Millisecond))
	if !w.Ready(ctx, pod) {
		t.Fatal("the volumes did not count as mounted at the retry")
	}
	if !w.Wake().IsZero() {
		t.Error("a wake time once the volumes are mounted")
	}
	if !w.Ready(ctx, pod) || calls != 2 {
		t.Errorf("mounted volumes were checked again (%d checks)", calls)
	}
}

// Volumes that cannot be processed at all get the pod sync's event, in
// the kubelet's words, naming every volume sorted.
// rule: STO-1
func TestWaitReportsUnprocessedVolumes(t *testing.T) {
	rec := record.NewFakeRecorder(10)
	w := Wait{Recorder: rec, Issues: func(context.Context, *corev1.Pod, func(string) bool) []Issue {
		return []Issue{
			{Name: "b", Process: `persistentvolumeclaim "b" not found`},
			{Name: "a", Process: `persistentvolumeclaim "a" not found`, Attach: true},
		}
	}}
	if w.Ready(context.Background(), waitPod()) {
		t.Fatal("Ready with volumes that cannot be processed")
	}
	want := `Warning FailedMount Unable to attach or mount volumes: unmounted volumes=[a b], unattached volumes=[a], ` +
		`failed to process volumes=[a b]: persistentvolumeclaim "a" not found; persistentvolumeclaim "b" not found`
	if ev := <-rec.Events; ev != want {
		t.Errorf("event\n got %s\nwant %s", ev, want)
	}
}

// A mount under way (a CSI driver's call) keeps the sandbox back without
// an event and is looked at again at the pod worker's poll; when it
// fails, its event comes once, and the new attempt waits for the back-off
// (due says so). Time is the worker's fake clock, so the poll is exact.
// rule: STO-2
func TestWaitPollsAPendingMount(t *testing.T) {
	rec := record.NewFakeRecorder(10)
	pending := true
	var dues []bool
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w := Wait{Recorder: rec, Clock: clk, Issues: func(_ context.Context, _ *corev1.Pod, due func(string) bool) []Issue {
		dues = append(dues, due("data"))
		if pending {
			return []Issue{{Name: "data", Pending: true}}
		}
		return []Issue{{Name: "data", Reason: ReasonFailedMount, Message: `MountVolume.SetUp failed for volume "data" : rpc error`}}
	}}
	ctx, pod := context.Background(), waitPod()
	if w.Ready(ctx, pod) {
		t.Fatal("Ready while the mount is under way")
	}
	if len(rec.Events) != 0 {
		t.Errorf("an event for a mount under way: %q", <-rec.Events)
	}
	if wake, want := w.Wake(), clk.Now().Add(mountPoll); !wake.Equal(want) {
		t.Errorf("wake %v, want the pod worker's poll at %v", wake, want)
	}
	pending = false
	clk.SetTime(clk.Now().Add(mountPoll - time.Millisecond))
	if w.Ready(ctx, pod) || len(dues) != 1 {
		t.Errorf("the mount was looked at before the poll (%d looks)", len(dues))
	}
	clk.SetTime(clk.Now().Add(time.Millisecond))
	if w.Ready(ctx, pod) {
		t.Fatal("Ready with a mount that failed")
	}
	select {
	case ev := <-rec.Events:
		if !strings.HasPrefix(ev, "Warning FailedMount MountVolume.SetUp failed") {
			t.Errorf("event %q", ev)
		}
	default:
		t.Fatal("the failed mount was not reported at the poll")
	}
	if len(dues) != 2 || !dues[0] || !dues[1] {
		t.Errorf("due = %v, want true at the first attempt and at the poll", dues)
	}
}
