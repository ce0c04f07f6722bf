// The informers' events, handed to the nodes and pods they concern.

package node

import (
	"github.com/winkube/winkube/pkg/node/internal/status"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// podHandler dispatches pod events to the node each pod is bound to: one
// watch serves every node of the agent.
func (a *Agent) podHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { a.dispatch(obj, false) },
		UpdateFunc: func(_, obj any) { a.dispatch(obj, false) },
		DeleteFunc: func(obj any) { a.dispatch(obj, true) },
	}
}

func (a *Agent) dispatch(obj any, deleted bool) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	n, ok := a.nodes[pod.Spec.NodeName]
	if !ok {
		return
	}
	if deleted {
		n.podRemoved(pod)
		return
	}
	n.podChanged(pod)
}

// nodeHandler follows the agent's nodes in the API: it closes a.ready once
// every node is Ready, and for the agent's whole life says on the terminal
// when a node turns Ready or stops being Ready (with the reason, see
// NotReady). It costs nothing while nodes do not change.
func (a *Agent) nodeHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { a.nodeSeen(obj, false) },
		UpdateFunc: func(_, obj any) { a.nodeSeen(obj, false) },
		DeleteFunc: func(obj any) { a.nodeSeen(obj, true) },
	}
}

func (a *Agent) nodeSeen(obj any, deleted bool) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	n, ok := obj.(*corev1.Node)
	if !ok {
		return
	}
	en, ours := a.nodes[n.Name]
	if !ours {
		return
	}
	if !deleted && n.Spec.PodCIDR != "" && en.network() == nil && a.beats != nil {
		// The allocator gave the node its pod CIDR: network it now
		// rather than at the next poll.
		a.beats.Add(beatJob{en, beatCIDR})
	}
	now := !deleted && status.Ready(n)
	a.readyMu.Lock()
	defer a.readyMu.Unlock()
	switch was := a.readyNodes[n.Name]; {
	case now && !was:
		a.progress.printf("node %s Ready", n.Name)
	case !now && was:
		a.progress.printf("node %s NotReady: %s", n.Name, a.notReadyReason(n.Name))
	}
	a.readyNodes[n.Name] = now
	if a.allReady {
		return
	}
	for _, name := range a.names {
		if !a.readyNodes[name] {
			return
		}
	}
	a.allReady = true
	close(a.ready)
}
