package node

import (
	"sync"
	"time"

	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"

	corev1 "k8s.io/api/core/v1"
)

// nodesPerEventSink is how many nodes share one event broadcaster.
//
// A real kubelet has a broadcaster of its own: a queue of 1,000 events
// and one goroutine writing them to the API server, which a node's own
// pods never fill. One broadcaster for every emulated node wrote each
// event after the last, and when a Deployment started 20 pods on each of
// 500 nodes its queue overflowed and client-go dropped two thirds of the
// kubelet events (Pulled, Created, Started) that real nodes would have
// written. A broadcaster per node would cost two goroutines and two
// 1,000-event channels a node; one per ten nodes writes in parallel
// enough to keep up, for 0.1 of that.
const nodesPerEventSink = 10

// eventHold bounds how long the kubelets' events wait for the agent's
// nodes.
//
// Until every node of the agent has been Ready, its kubelets' events wait
// in their broadcasters' queues. They are half of the API writes of a
// start (Starting, the three NodeHasSufficient* and, on Linux,
// NodeAllocatableEnforced, for each node), and written as they came they
// competed with the registrations, leases and statuses that make the
// nodes Ready: 5,000 nodes were Ready 99 s after the agent started that
// way, 57 s with the events held. An event keeps the time it was recorded
// (firstTimestamp, lastTimestamp); only its creation in the API is later.
// A node that never turns Ready (one without a pod CIDR, say) still has
// its events written, eventHold after the agent started. Ten nodes'
// start-up events are 60 of a broadcaster's queue of 1,000.
const eventHold = 2 * time.Minute

// eventSinks are the agent's event broadcasters, each shared by up to
// nodesPerEventSink nodes.
type eventSinks struct {
	broadcasters []record.EventBroadcaster
	open         chan struct{} // closed by release
	openOnce     sync.Once
	timer        *time.Timer
}

func newEventSinks() *eventSinks { return &eventSinks{open: make(chan struct{})} }

// release lets the held events go; the agent calls it once its nodes have
// all been Ready.
func (s *eventSinks) release() {
	s.openOnce.Do(func() {
		close(s.open)
		if s.timer != nil {
			s.timer.Stop()
		}
	})
}

// heldSink writes events once the sinks are released. A broadcaster
// writes its events one after the other, so holding the first holds all.
type heldSink struct {
	record.EventSink
	open <-chan struct{}
}

func (h heldSink) Create(e *corev1.Event) (*corev1.Event, error) {
	<-h.open
	return h.EventSink.Create(e)
}

func (h heldSink) Update(e *corev1.Event) (*corev1.Event, error) {
	<-h.open
	return h.EventSink.Update(e)
}

func (h heldSink) Patch(e *corev1.Event, data []byte) (*corev1.Event, error) {
	<-h.open
	return h.EventSink.Patch(e, data)
}

// recorder is the kubelet recorder of the agent's i-th node (from 0, in
// the order they are made); every nodesPerEventSink-th gets a new
// broadcaster. Recorders are made before start.
func (s *eventSinks) recorder(i int, node string) record.EventRecorder {
	if i/nodesPerEventSink >= len(s.broadcasters) {
		s.broadcasters = append(s.broadcasters, record.NewBroadcaster())
	}
	b := s.broadcasters[len(s.broadcasters)-1]
	return b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "kubelet", Host: node})
}

// start begins writing each broadcaster's events through events, once
// released or after eventHold.
func (s *eventSinks) start(events typedcorev1.EventInterface) {
	s.timer = time.AfterFunc(eventHold, s.release)
	for _, b := range s.broadcasters {
		b.StartRecordingToSink(heldSink{&typedcorev1.EventSinkImpl{Interface: events}, s.open})
	}
}

// shutdown releases, flushes and stops them.
func (s *eventSinks) shutdown() {
	s.release()
	for _, b := range s.broadcasters {
		b.Shutdown()
	}
}
