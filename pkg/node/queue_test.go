package node

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
	w := &podWorker{clock: clk}
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
	w := &podWorker{clock: clk}
	w.pauseSeen = false
	_ = w.pause(nil, 500*time.Millisecond)
	w.dropAbandonedPause()
	if !w.pulling() {
		t.Fatal("a pull that just started was dropped")
	}
	w.pauseSeen = false // the next step takes the image-present path
	w.dropAbandonedPause()
	if w.paused() {
		t.Fatal("a pull the step did not come back to still pauses the pod")
	}
}

// The pod queue runs on the agent's clock: a pod due in 5 s is handed out
// once the fake clock has moved 5 s, not before.
func TestPodQueueFollowsInjectedClock(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := &Agent{clock: clk}
	a.newQueues()
	defer a.shutDownQueues()
	w := &podWorker{}
	a.pods.AddAfter(w, 5*time.Second)
	clk.Step(4 * time.Second)
	time.Sleep(50 * time.Millisecond) // room for the queue's loop to (wrongly) act
	if n := a.pods.Len(); n != 0 {
		t.Fatalf("%d pods handed out 1 s early", n)
	}
	clk.Step(time.Second)
	got, _ := a.pods.Get() // blocks until the queue's loop moves the pod over
	if got != w {
		t.Fatal("the queue handed out another pod")
	}
	a.pods.Done(got)
}

func TestClientLimitsGrowWithNodes(t *testing.T) {
	for _, c := range []struct {
		nodes int
		qps   float32
		burst int
	}{{3, 200, 400}, {1000, 1292, 2584}} {
		qps, burst := clientLimits(c.nodes)
		if qps != c.qps || burst != c.burst {
			t.Errorf("clientLimits(%d) = %v/%d, want %v/%d", c.nodes, qps, burst, c.qps, c.burst)
		}
	}
}
