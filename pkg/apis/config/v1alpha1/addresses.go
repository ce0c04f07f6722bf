package v1alpha1

import (
	"fmt"
	"net/netip"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// KeepAddresses fixes every node's InternalIP in c, given the nodes the
// cluster ran before (previous, from the saved config of its data dir), so
// that a change of the pools moves no address: a node that keeps its name
// keeps its address unless c gives it another; a new node takes the next
// address no previous node held; an address c gives explicitly must not be
// one a remaining node holds. The addresses are written into the pools'
// nodes lists (name and managementIP), so the saved config carries them to
// the next `up`.
func (c *Cluster) KeepAddresses(previous []Node) error {
	mgmt, err := netip.ParsePrefix(c.Network.ManagementCIDR)
	if err != nil {
		return fmt.Errorf("network.managementCIDR: %w", err)
	}
	before := map[string]netip.Addr{}
	taken := map[netip.Addr]string{} // address → the node holding or given it
	for _, n := range previous {
		before[n.Name] = n.InternalIP
		taken[n.InternalIP] = n.Name
	}
	wanted := c.Nodes()
	stays := map[string]bool{}
	for _, n := range wanted {
		stays[n.Name] = true
	}
	if err := c.checkExplicit(before, stays); err != nil {
		return err
	}
	for ip, name := range c.explicitOwners() {
		taken[ip] = name
	}
	next := firstNodeAddr(mgmt)
	for i := range c.NodePools {
		p := &c.NodePools[i]
		for n := 1; n <= p.Replicas(); n++ {
			if n > len(p.Nodes) {
				p.Nodes = append(p.Nodes, PoolNode{Name: fmt.Sprintf("%s-%d", p.Name, n)})
			}
			pn := &p.Nodes[n-1]
			pn.Name = orDefault(pn.Name, fmt.Sprintf("%s-%d", p.Name, n))
			if pn.ManagementIP != "" {
				continue
			}
			if ip, ok := before[pn.Name]; ok && mgmt.Contains(ip) {
				pn.ManagementIP = ip.String()
				continue
			}
			for taken[next] != "" {
				next = next.Next()
			}
			if !mgmt.Contains(next) {
				return fmt.Errorf("network.managementCIDR %s has no free address for node %s", mgmt, pn.Name)
			}
			taken[next] = pn.Name
			pn.ManagementIP = next.String()
		}
	}
	return nil
}

// checkExplicit refuses a managementIP that c gives one node while another
// node that stays in the cluster holds it.
func (c *Cluster) checkExplicit(before map[string]netip.Addr, stays map[string]bool) error {
	holder := map[netip.Addr]string{}
	for name, ip := range before {
		if stays[name] {
			holder[ip] = name
		}
	}
	for i := range c.NodePools {
		for j, pn := range c.NodePools[i].Nodes {
			ip, err := netip.ParseAddr(pn.ManagementIP)
			if err != nil {
				continue
			}
			name := orDefault(pn.Name, fmt.Sprintf("%s-%d", c.NodePools[i].Name, j+1))
			if other := holder[ip]; other != "" && other != name && !c.givesOther(other) {
				path := field.NewPath("nodePools").Index(i).Child("nodes").Index(j).Child("managementIP")
				return fmt.Errorf("%s: %s is the address of node %s, which stays in the cluster; give %s another address", path, ip, other, name)
			}
		}
	}
	return nil
}

// givesOther reports whether c gives node name an explicit address (then
// the address it held before is free).
func (c *Cluster) givesOther(name string) bool {
	for i := range c.NodePools {
		for j, pn := range c.NodePools[i].Nodes {
			if orDefault(pn.Name, fmt.Sprintf("%s-%d", c.NodePools[i].Name, j+1)) == name && pn.ManagementIP != "" {
				return true
			}
		}
	}
	return false
}

// explicitOwners maps the management IPs the nodes lists give to their nodes.
func (c *Cluster) explicitOwners() map[netip.Addr]string {
	out := map[netip.Addr]string{}
	for i := range c.NodePools {
		for j, pn := range c.NodePools[i].Nodes {
			if ip, err := netip.ParseAddr(pn.ManagementIP); err == nil {
				out[ip] = orDefault(pn.Name, fmt.Sprintf("%s-%d", c.NodePools[i].Name, j+1))
			}
		}
	}
	return out
}

// firstNodeAddr is where Nodes starts handing out addresses.
func firstNodeAddr(mgmt netip.Prefix) netip.Addr {
	ip := mgmt.Masked().Addr()
	for i := 0; i < firstNodeHost; i++ {
		ip = ip.Next()
	}
	return ip
}
