package node

import (
	"testing"

	"time"

	corev1 "k8s.io/api/core/v1"
)

// Nodes share an event broadcaster ten at a time, so a burst of kubelet
// events is written by many sinks at once rather than queued behind one,
// and each node's events name it as their source host.
func TestEventSinksGroupNodes(t *testing.T) {
	s := &eventSinks{}
	for i := range 25 {
		s.recorder(i, "node")
	}
	if len(s.broadcasters) != 3 {
		t.Fatalf("25 nodes have %d broadcasters, want 3", len(s.broadcasters))
	}
	got := make(chan *corev1.Event, 1)
	w := s.broadcasters[2].StartEventWatcher(func(e *corev1.Event) { got <- e })
	defer w.Stop()
	r := s.recorder(25, "node-26")
	r.Eventf(&corev1.Pod{}, corev1.EventTypeNormal, "Pulled", "pulled")
	select {
	case e := <-got:
		if e.Source.Host != "node-26" || e.Source.Component != "kubelet" {
			t.Errorf("event source %+v, want the kubelet of node-26", e.Source)
		}
	case <-time.After(time.Minute):
		t.Fatal("the 26th node's event never reached its broadcaster")
	}
	s.shutdown()
}
