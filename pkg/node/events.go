package node

import (
	"k8s.io/client-go/kubernetes/scheme"
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

// eventSinks are the agent's event broadcasters, each shared by up to
// nodesPerEventSink nodes.
type eventSinks struct {
	broadcasters []record.EventBroadcaster
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

// start begins writing each broadcaster's events, each through the sink
// of the kubelet that recorded it, its source host (KLT-12).
func (s *eventSinks) start(sinkFor func(host string) record.EventSink) {
	for _, b := range s.broadcasters {
		b.StartRecordingToSink(hostSink(sinkFor))
	}
}

// hostSink writes an event through the sink of its source host.
type hostSink func(host string) record.EventSink

func (f hostSink) Create(e *corev1.Event) (*corev1.Event, error) {
	return f(e.Source.Host).Create(e)
}

func (f hostSink) Update(e *corev1.Event) (*corev1.Event, error) {
	return f(e.Source.Host).Update(e)
}

func (f hostSink) Patch(e *corev1.Event, data []byte) (*corev1.Event, error) {
	return f(e.Source.Host).Patch(e, data)
}

// shutdown flushes and stops them.
func (s *eventSinks) shutdown() {
	for _, b := range s.broadcasters {
		b.Shutdown()
	}
}
