package node

import (
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/node/internal/podworker"
	clocktesting "k8s.io/utils/clock/testing"
)

// The pod queue runs on the agent's clock: a pod due in 5 s is handed out
// once the fake clock has moved 5 s, not before.
func TestPodQueueFollowsInjectedClock(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a := &Agent{clock: clk}
	a.newQueues()
	defer a.shutDownQueues()
	w := &podworker.Worker{}
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
