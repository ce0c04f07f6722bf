package network

import (
	"net/netip"
	"slices"

	"github.com/winkube/winkube/pkg/network/hns"
)

// Node returns the named node, or nil.
func (m *Model) Node(name string) *Node {
	i, ok := slices.BinarySearchFunc(m.Nodes, name, func(n *Node, name string) int {
		switch {
		case n.Name < name:
			return -1
		case n.Name > name:
			return 1
		}
		return 0
	})
	if ok {
		return m.Nodes[i]
	}
	for _, n := range m.Nodes { // not sorted: a model built by hand
		if n.Name == name {
			return n
		}
	}
	return nil
}

// NodeByIP returns the node with the InternalIP, or nil.
func (m *Model) NodeByIP(ip netip.Addr) *Node {
	for _, n := range m.Nodes {
		if n.InternalIP == ip {
			return n
		}
	}
	return nil
}

// NodeForPodIP returns the node whose pod CIDR holds ip, or nil.
func (m *Model) NodeForPodIP(ip netip.Addr) *Node {
	for _, n := range m.Nodes {
		if n.PodCIDR.IsValid() && n.PodCIDR.Contains(ip) {
			return n
		}
	}
	return nil
}

// Network returns the node's HNS network, or nil (Linux nodes, or a
// Windows node whose flanneld did not start).
func (n *Node) Network() *hns.Network {
	if len(n.HNS.Networks) == 0 {
		return nil
	}
	return &n.HNS.Networks[0]
}

// Endpoint returns the node's HNS endpoint with the address; a local
// endpoint wins over a remote one.
func (n *Node) Endpoint(ip netip.Addr) *hns.Endpoint {
	var remote *hns.Endpoint
	s := ip.String()
	for i := range n.HNS.Endpoints {
		ep := &n.HNS.Endpoints[i]
		if ep.IPAddress != s {
			continue
		}
		if !ep.IsRemoteEndpoint {
			return ep
		}
		remote = ep
	}
	return remote
}

// EndpointByID returns the node's HNS endpoint with the ID, or nil.
func (n *Node) EndpointByID(id string) *hns.Endpoint {
	for i := range n.HNS.Endpoints {
		if n.HNS.Endpoints[i].ID == id {
			return &n.HNS.Endpoints[i]
		}
	}
	return nil
}

// LoadBalancer returns the node's load balancer for a frontend VIP,
// external port and protocol number (hns.ProtocolTCP …), or nil.
func (n *Node) LoadBalancer(vip netip.Addr, port, protocol int) *hns.LoadBalancer {
	s := vip.String()
	for i := range n.HNS.LoadBalancers {
		lb := &n.HNS.LoadBalancers[i]
		if lb.ExternalPort == port && lb.Protocol == protocol && slices.Contains(lb.FrontendVIPs, s) {
			return lb
		}
	}
	return nil
}

// NodePortLoadBalancer returns the node's NodePort load balancer for a
// node port and protocol number, or nil.
func (n *Node) NodePortLoadBalancer(port, protocol int) *hns.LoadBalancer {
	for i := range n.HNS.LoadBalancers {
		lb := &n.HNS.LoadBalancers[i]
		if lb.Kind == hns.KindNodePort && lb.ExternalPort == port && lb.Protocol == protocol {
			return lb
		}
	}
	return nil
}

// LoadBalancersOf lists the node's load balancers for a Service
// ("namespace/name").
func (n *Node) LoadBalancersOf(service string) []*hns.LoadBalancer {
	var out []*hns.LoadBalancer
	for i := range n.HNS.LoadBalancers {
		if n.HNS.LoadBalancers[i].Service == service {
			out = append(out, &n.HNS.LoadBalancers[i])
		}
	}
	return out
}

// Backends are the endpoints a load balancer sends to, in its order.
func (n *Node) Backends(lb *hns.LoadBalancer) []*hns.Endpoint {
	var out []*hns.Endpoint
	for _, id := range lb.Endpoints {
		if ep := n.EndpointByID(id); ep != nil {
			out = append(out, ep)
		}
	}
	return out
}
