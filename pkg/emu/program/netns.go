package program

import (
	"net/netip"
	"sync"
)

// Netns is a Linux container's network namespace as ip shows it: lo, eth0
// with the pod's address, the routes to the pod network, and the links
// its processes added (ip link add). The links are the container's own:
// the emulation does not share them with the pod's other containers or
// keep them across a restart.
type Netns struct {
	// Addr is eth0's address with the pod subnet's length
	// (10.244.1.5/24); invalid when the container has no address the
	// node knows.
	Addr netip.Prefix
	// Gateway is the pod network's router, the subnet's bridge (.1);
	// invalid when there is none (the host network).
	Gateway netip.Addr

	mu    sync.Mutex
	added []Link
	next  int // the ifindex of the next link (lo is 1, eth0 2)
}

// Link is a link a process added: its name and its ifindex, which the
// kernel never reuses while the namespace lives.
type Link struct {
	Name  string
	Index int
}

// AddLink adds a link; it is false when one of that name exists.
func (n *Netns) AddLink(name string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if name == "lo" || name == "eth0" || n.find(name) >= 0 {
		return false
	}
	if n.next == 0 {
		n.next = 3
	}
	n.added = append(n.added, Link{Name: name, Index: n.next})
	n.next++
	return true
}

// DeleteLink removes a link added before; it is false when there is none.
func (n *Netns) DeleteLink(name string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	i := n.find(name)
	if i < 0 {
		return false
	}
	n.added = append(n.added[:i], n.added[i+1:]...)
	return true
}

// Added are the added links in the order they were made.
func (n *Netns) Added() []Link {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]Link(nil), n.added...)
}

func (n *Netns) find(name string) int {
	for i, a := range n.added {
		if a.Name == name {
			return i
		}
	}
	return -1
}
