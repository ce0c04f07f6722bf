package podnet

import (
	"fmt"
	"net/netip"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// CIDRPicker chooses node pod CIDRs when no controller allocates them (a
// cluster joined with `winkube nodes` whose controller-manager runs without
// --allocate-node-cidrs): the first /maskSize subnet of the cluster CIDR that
// no node uses and this agent has not handed out.
type CIDRPicker struct {
	mu      sync.Mutex
	cluster netip.Prefix
	bits    int
	taken   map[netip.Prefix]bool
}

// NewCIDRPicker picks /maskSize subnets of clusterCIDR.
func NewCIDRPicker(clusterCIDR string, maskSize int) (*CIDRPicker, error) {
	p, err := netip.ParsePrefix(clusterCIDR)
	if err != nil {
		return nil, fmt.Errorf("network.clusterCIDR %q: %w", clusterCIDR, err)
	}
	p = p.Masked()
	if !p.Addr().Is4() {
		return nil, fmt.Errorf("network.clusterCIDR %q: only IPv4 is supported", clusterCIDR)
	}
	if maskSize < p.Bits() || maskSize > 30 {
		return nil, fmt.Errorf("network.nodeCIDRMaskSize %d must be between %d and 30", maskSize, p.Bits())
	}
	return &CIDRPicker{cluster: p, bits: maskSize, taken: map[netip.Prefix]bool{}}, nil
}

// Pick returns a free subnet given the nodes the API knows.
func (c *CIDRPicker) Pick(nodes []*corev1.Node) (netip.Prefix, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	used := map[netip.Prefix]bool{}
	for _, n := range nodes {
		for _, s := range append([]string{n.Spec.PodCIDR}, n.Spec.PodCIDRs...) {
			if p, err := netip.ParsePrefix(s); err == nil {
				used[p.Masked()] = true
			}
		}
	}
	count := 1 << (c.bits - c.cluster.Bits())
	for i := 0; i < count; i++ {
		s := c.subnet(i)
		if !used[s] && !c.taken[s] && !overlapsAny(s, used) {
			c.taken[s] = true
			return s, nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("no free /%d left in cluster CIDR %s", c.bits, c.cluster)
}

// subnet is the i-th /bits subnet of the cluster CIDR.
func (c *CIDRPicker) subnet(i int) netip.Prefix {
	a := c.cluster.Addr().As4()
	base := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	v := base + uint32(i)<<(32-c.bits)
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), c.bits)
}

func overlapsAny(p netip.Prefix, set map[netip.Prefix]bool) bool {
	for q := range set {
		if p.Overlaps(q) {
			return true
		}
	}
	return false
}
