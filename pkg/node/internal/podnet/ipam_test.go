package podnet

import (
	"net/netip"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestIPAMHostLocalOrder(t *testing.T) {
	m, err := NewIPAM("10.244.3.0/29") // usable .2-.6
	if err != nil {
		t.Fatal(err)
	}
	alloc := func(owner string) string {
		t.Helper()
		ip, err := m.Allocate(owner)
		if err != nil {
			t.Fatalf("allocate %s: %v", owner, err)
		}
		return ip.String()
	}
	// Skips the network (.0) and gateway (.1) addresses.
	if got := alloc("a"); got != "10.244.3.2" {
		t.Errorf("first = %s, want 10.244.3.2", got)
	}
	if got := alloc("a"); got != "10.244.3.2" {
		t.Errorf("same owner again = %s, want the same address", got)
	}
	alloc("b") // .3
	m.Release("a")
	// Next free after the last handed out, not the lowest free one.
	if got := alloc("c"); got != "10.244.3.4" {
		t.Errorf("after release = %s, want 10.244.3.4", got)
	}
	alloc("d") // .5
	alloc("e") // .6, never the broadcast .7
	// Wraps to the start and finds the released .2.
	if got := alloc("f"); got != "10.244.3.2" {
		t.Errorf("wrapped = %s, want 10.244.3.2", got)
	}
	if _, err := m.Allocate("g"); err == nil {
		t.Error("allocate from a full range: want an error")
	}
}

func TestIPAMReserveAfterRestart(t *testing.T) {
	m, _ := NewIPAM("10.244.1.0/24")
	if err := m.Reserve("old", netip.MustParseAddr("10.244.1.7")); err != nil {
		t.Fatal(err)
	}
	if err := m.Reserve("other", netip.MustParseAddr("10.244.1.7")); err == nil {
		t.Error("reserving a held address for another owner: want an error")
	}
	if ip, _ := m.Allocate("new"); ip.String() != "10.244.1.8" {
		t.Errorf("allocation after adoption = %s, want 10.244.1.8", ip)
	}
	if err := m.Reserve("x", netip.MustParseAddr("10.9.9.9")); err == nil {
		t.Error("reserving outside the CIDR: want an error")
	}
}

func TestCIDRPickerSkipsUsed(t *testing.T) {
	p, err := NewCIDRPicker("10.244.0.0/16", 24)
	if err != nil {
		t.Fatal(err)
	}
	used := &corev1.Node{}
	used.Spec.PodCIDR = "10.244.0.0/24"
	got, err := p.Pick([]*corev1.Node{used})
	if err != nil || got.String() != "10.244.1.0/24" {
		t.Errorf("pick = %v, %v; want 10.244.1.0/24", got, err)
	}
	got, _ = p.Pick([]*corev1.Node{used})
	if got.String() != "10.244.2.0/24" {
		t.Errorf("second pick = %v, want 10.244.2.0/24 (no double hand-out)", got)
	}
}
