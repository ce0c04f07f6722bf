package podworker

import (
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// A pause is a state with an end time, not a sleep: the step that starts
// it ends there, steps before its end find it still running, and the first
// step after it carries on. Time is the injected fake clock's.
func TestPauseFollowsInjectedClock(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w := &Worker{clock: clk}
	if w.wait(pauseStop, 3*time.Second) {
		t.Fatal("a 3 s stop is over as soon as it starts")
	}
	if !w.paused() || !w.pauseUntil.Equal(clk.Now().Add(3*time.Second)) {
		t.Fatalf("paused=%v until %s, want paused until 3 s from now", w.paused(), w.pauseUntil)
	}
	clk.Step(2 * time.Second)
	if w.wait(pauseStop, 3*time.Second) {
		t.Fatal("the stop is over after 2 of its 3 s")
	}
	clk.Step(time.Second)
	if !w.wait(pauseStop, 3*time.Second) || w.paused() {
		t.Fatal("the stop is not over after 3 s")
	}
}

// A step that no longer reaches the wait (another pod pulled the image,
// or the pod is being deleted) ends it, so the pod does not stay paused.
func TestAbandonedPauseIsDropped(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w := &Worker{clock: clk}
	w.pauseSeen = false
	_ = pullWait{w}.Pause(500 * time.Millisecond)
	w.dropAbandonedPause()
	if !(pullWait{w}).Pulling() {
		t.Fatal("a pull that just started was dropped")
	}
	w.pauseSeen = false // the next step takes the image-present path
	w.dropAbandonedPause()
	if w.paused() {
		t.Fatal("a pull the step did not come back to still pauses the pod")
	}
}
