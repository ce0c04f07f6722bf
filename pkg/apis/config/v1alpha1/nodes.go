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
	// InterfaceName is the host adapter (PLAN-3); empty when not given.
	InterfaceName string
}

// Nodes expands the pools into nodes named <pool>-<n> (n from 1), or as
// the pool's nodes list names them, with the InternalIPs the list gives
// and the others handed out in order from the management network,
// skipping the addresses the list takes.
func (c *Cluster) Nodes() []Node {
	mgmt, err := netip.ParsePrefix(c.Network.ManagementCIDR)
	if err != nil {
		mgmt = netip.MustParsePrefix(DefaultManagementCIDR)
	}
	taken := c.explicitIPs()
	ip := mgmt.Masked().Addr()
	for i := 0; i < firstNodeHost; i++ {
		ip = ip.Next()
	}
	next := func() netip.Addr {
		for taken[ip] {
			ip = ip.Next()
		}
		a := ip
		ip = ip.Next()
		return a
	}
	var nodes []Node
	for i := range c.NodePools {
		p := &c.NodePools[i]
		for n := 1; n <= p.Replicas(); n++ {
			node := Node{Name: fmt.Sprintf("%s-%d", p.Name, n), Pool: p}
			if n <= len(p.Nodes) {
				given := p.Nodes[n-1]
				node.Name = orDefault(given.Name, node.Name)
				node.InterfaceName = given.InterfaceName
				node.InternalIP, _ = netip.ParseAddr(given.ManagementIP)
			}
			if !node.InternalIP.IsValid() {
				node.InternalIP = next()
			}
			nodes = append(nodes, node)
		}
	}
	return nodes
}

// explicitIPs are the management IPs the pools' nodes lists give.
func (c *Cluster) explicitIPs() map[netip.Addr]bool {
	taken := map[netip.Addr]bool{}
	for i := range c.NodePools {
		for _, n := range c.NodePools[i].Nodes {
			if a, err := netip.ParseAddr(n.ManagementIP); err == nil {
				taken[a] = true
			}
		}
	}
	return taken
}
