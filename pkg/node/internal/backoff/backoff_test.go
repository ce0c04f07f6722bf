package backoff

import (
	"testing"
	"time"
)

// The kubelet's back-offs in virtual time (k8s.io/client-go
// util/flowcontrol/backoff.go as k8s.io/kubernetes v1.36 pkg/kubelet uses
// it: kubelet.go, kuberuntime/kuberuntime_manager.go doBackOff).
func TestCrashLoopBackOff(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b Backoff
	// First exit: no back-off yet, so the restart is immediate.
	if b.InBackOffSince(t0, t0) {
		t.Fatal("in back-off before the first restart")
	}
	b.Next(t0, t0)
	// Second exit 1 s later: back-off of 10 s counted from the exit.
	exit2 := t0.Add(time.Second)
	if !b.InBackOffSince(exit2, exit2.Add(9*time.Second)) || b.InBackOffSince(exit2, exit2.Add(10*time.Second)) {
		t.Errorf("second exit: want a 10 s back-off, window %s", b.Window)
	}
	// Each further exit doubles it, up to 5 minutes.
	var got []time.Duration
	now := exit2.Add(10 * time.Second)
	for range 7 {
		got = append(got, b.Next(now, now))
		now = now.Add(b.Window)
	}
	want := []time.Duration{20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 300 * time.Second, 300 * time.Second, 300 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("windows = %v, want %v", got, want)
		}
	}
	// After 10 minutes of stable running the next exit starts over.
	quiet := b.lastUpdate.Add(10*time.Minute + time.Second)
	if b.InBackOffSince(quiet, quiet) {
		t.Error("still in back-off after 10 quiet minutes")
	}
	if d := b.Next(quiet, quiet); d != 10*time.Second {
		t.Errorf("window after 10 quiet minutes = %s, want 10s", d)
	}
}

// rule: IMG-4 (ErrImagePull, then ImagePullBackOff; image_manager.go)
func TestImagePullBackOff(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b Backoff
	if b.InBackOffSinceUpdate(t0) {
		t.Fatal("in back-off before any failure")
	}
	b.Next(t0, t0)
	// The PLEG's sync a second after the sandbox appeared finds the pull
	// in back-off; a sync after a failed sync's 10–15 s does not.
	if !b.InBackOffSinceUpdate(t0.Add(PLEGRelist)) {
		t.Error("not in back-off at the PLEG's sync")
	}
	retry := SyncRetryAt(t0)
	if d := retry.Sub(t0); d < 10*time.Second || d >= 15*time.Second {
		t.Errorf("next sync after a failed one in %s, want 10–15 s", d)
	}
	if b.InBackOffSinceUpdate(retry) {
		t.Error("still in the 10 s back-off at the next sync")
	}
	// The second failure doubles the window, so the sync after it shows
	// ImagePullBackOff again.
	b.Next(retry, retry)
	if !b.InBackOffSinceUpdate(SyncRetryAt(retry)) {
		t.Error("second window of 20 s does not cover the next sync")
	}
}
