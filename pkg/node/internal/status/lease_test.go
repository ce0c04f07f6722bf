package status

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestLeaseRenewDelayStaysWithinJitter(t *testing.T) {
	// The extremes of r give the ends of the ±20% band around the
	// kubelet's 10 s; none of them lets a 40 s lease lapse.
	for _, c := range []struct {
		r    float64
		want time.Duration
	}{{0, 8 * time.Second}, {0.5, 10 * time.Second}, {0.75, 11 * time.Second}} {
		if got := LeaseRenewDelay(c.r); got != c.want {
			t.Errorf("LeaseRenewDelay(%v) = %s, want %s", c.r, got, c.want)
		}
	}
	if got := LeaseRenewDelay(0.999999); got > 12*time.Second || got < 11900*time.Millisecond {
		t.Errorf("LeaseRenewDelay(~1) = %s, want just under 12s", got)
	}
}

// TestLeaseRenewalsOfNodesStartedTogetherSpread simulates 1,000 nodes that
// renew at the same instant, with a seeded source standing in for the
// agent's random numbers, and counts how the third renewal falls into
// 100 ms slots: in lockstep all would share one slot.
func TestLeaseRenewalsOfNodesStartedTogetherSpread(t *testing.T) {
	const nodes, slot = 1000, 100 * time.Millisecond
	src := rand.New(rand.NewPCG(1, 13))
	perSlot := map[time.Duration]int{}
	for range nodes {
		var at time.Duration
		for range 3 {
			at += LeaseRenewDelay(src.Float64())
		}
		perSlot[at/slot]++
	}
	busiest := 0
	for _, n := range perSlot {
		busiest = max(busiest, n)
	}
	// Three draws of ±2 s spread the renewals over ~12 s (120 slots), the
	// middle ones busiest; 100 nodes in one slot would still be a burst.
	if len(perSlot) < 60 || busiest > 50 {
		t.Errorf("1,000 renewals fell into %d slots of %s, the busiest holding %d; want >= 60 slots and <= 50 per slot",
			len(perSlot), slot, busiest)
	}
}
