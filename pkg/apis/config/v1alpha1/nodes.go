package v1alpha1

import (
	"fmt"
	"net/netip"
)

// firstNodeHost is the host number of the first node in the management
// network; the low addresses are left for a gateway and the control plane.
const firstNodeHost = 10

// Node is one emulated node expanded from a pool.
type Node struct {
	Name       string
	Pool       *NodePool
	InternalIP netip.Addr
}

// Nodes expands the pools into nodes named <pool>-<n> (n from 1), with
// InternalIPs handed out in order from the management network.
func (c *Cluster) Nodes() []Node {
	mgmt, err := netip.ParsePrefix(c.Network.ManagementCIDR)
	if err != nil {
		mgmt = netip.MustParsePrefix(DefaultManagementCIDR)
	}
	ip := mgmt.Masked().Addr()
	for i := 0; i < firstNodeHost; i++ {
		ip = ip.Next()
	}
	var nodes []Node
	for i := range c.NodePools {
		p := &c.NodePools[i]
		for n := 1; n <= p.Replicas(); n++ {
			nodes = append(nodes, Node{Name: fmt.Sprintf("%s-%d", p.Name, n), Pool: p, InternalIP: ip})
			ip = ip.Next()
		}
	}
	return nodes
}
