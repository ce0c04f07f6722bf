// Package podnet is the emulated nodes' pod network: the pod IPs of a
// node (host-local IPAM), the pod CIDRs the agent picks when no
// controller allocates them, what flanneld writes and reserves on a node,
// and the router that carries the pods' traffic (pkg/emu/vnet) as the
// Windows network model (pkg/network, pkg/network/reach) decides it.
package podnet

import (
	"fmt"
	"net/netip"
	"sync"

	"github.com/winkube/winkube/pkg/network/cni"
)

// IPAM hands out pod IPs from one node's pod CIDR the way the host-local CNI
// IPAM plugin does: the next free address after the last one handed out,
// wrapping at the end of the range. The network address, the gateway (.1)
// and the broadcast address are never handed out.
type IPAM struct {
	mu     sync.Mutex
	prefix netip.Prefix
	first  netip.Addr // network + 2
	last   netip.Addr // broadcast - 1
	used   map[netip.Addr]string
	lastIP netip.Addr // zero until the first allocation
}

// NewIPAM prepares allocation from an IPv4 pod CIDR such as 10.244.1.0/24.
func NewIPAM(cidr string) (*IPAM, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return nil, fmt.Errorf("parse pod CIDR %q: %w", cidr, err)
	}
	p = p.Masked()
	if !p.Addr().Is4() || p.Bits() > 29 {
		return nil, fmt.Errorf("pod CIDR %q: need an IPv4 prefix of /29 or larger", cidr)
	}
	first := p.Addr().Next().Next()
	return &IPAM{prefix: p, first: first, last: cni.Broadcast(p).Prev(), used: map[netip.Addr]string{}}, nil
}

// Allocate gives owner (a pod UID) an address; an owner that already has one
// gets the same address back.
func (m *IPAM) Allocate(owner string) (netip.Addr, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for ip, o := range m.used {
		if o == owner {
			return ip, nil
		}
	}
	start := m.first
	if m.lastIP.IsValid() {
		start = m.next(m.lastIP)
	}
	ip := start
	for {
		if _, taken := m.used[ip]; !taken {
			m.used[ip] = owner
			m.lastIP = ip
			return ip, nil
		}
		ip = m.next(ip)
		if ip == start {
			return netip.Addr{}, fmt.Errorf("no IP addresses available in range set: %s-%s", m.first, m.last)
		}
	}
}

// next is the address after ip in the range, wrapping to the first.
func (m *IPAM) next(ip netip.Addr) netip.Addr {
	if ip == m.last {
		return m.first
	}
	return ip.Next()
}

// Reserve records an address already in use, e.g. by a pod adopted after an
// agent restart. It also moves the "last allocated" mark like host-local's
// last_reserved_ip file would have.
func (m *IPAM) Reserve(owner string, ip netip.Addr) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.prefix.Contains(ip) {
		return fmt.Errorf("address %s is outside the pod CIDR %s", ip, m.prefix)
	}
	if o, ok := m.used[ip]; ok && o != owner {
		return fmt.Errorf("address %s is already held by %s", ip, o)
	}
	m.used[ip] = owner
	if !m.lastIP.IsValid() || ip.Compare(m.lastIP) > 0 {
		m.lastIP = ip
	}
	return nil
}

// Release frees owner's address, if any.
func (m *IPAM) Release(owner string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for ip, o := range m.used {
		if o == owner {
			delete(m.used, ip)
		}
	}
}

// InUse is the number of addresses handed out.
func (m *IPAM) InUse() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.used)
}

// Prefix is the pod CIDR addresses are handed out from.
func (m *IPAM) Prefix() netip.Prefix { return m.prefix }
