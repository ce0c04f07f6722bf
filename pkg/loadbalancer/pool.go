package loadbalancer

import (
	"errors"
	"fmt"
	"net/netip"
)

// errExhausted says every usable address of the pool is taken.
var errExhausted = errors.New("no free address")

// pool hands out the addresses of one IPv4 prefix, one per Service key.
// It is not safe for concurrent use; the controller's single worker owns it.
type pool struct {
	prefix netip.Prefix
	first  netip.Addr // network address + 1
	last   netip.Addr // broadcast address - 1
	byKey  map[string]netip.Addr
	byIP   map[netip.Addr]string
}

// newPool checks that prefix is an IPv4 network with at least one address
// besides its network and broadcast addresses.
func newPool(prefix netip.Prefix) (*pool, error) {
	if !prefix.IsValid() || !prefix.Addr().Is4() {
		return nil, fmt.Errorf("load balancer pool %s: must be an IPv4 CIDR such as 127.127.131.0/24 (network.loadBalancerCIDR)", prefix)
	}
	if prefix.Bits() > 30 {
		return nil, fmt.Errorf("load balancer pool %s: too small, use /30 or larger (network.loadBalancerCIDR)", prefix)
	}
	prefix = prefix.Masked()
	return &pool{
		prefix: prefix,
		first:  prefix.Addr().Next(),
		last:   broadcast(prefix).Prev(),
		byKey:  map[string]netip.Addr{},
		byIP:   map[netip.Addr]string{},
	}, nil
}

// broadcast is the highest address of an IPv4 prefix.
func broadcast(p netip.Prefix) netip.Addr {
	a := p.Addr().As4()
	host := uint32(1)<<(32-p.Bits()) - 1
	v := (uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])) | host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// usable reports whether a can be handed out: inside the prefix and neither
// its network nor its broadcast address.
func (p *pool) usable(a netip.Addr) bool {
	return p.prefix.Contains(a) && a.Compare(p.first) >= 0 && a.Compare(p.last) <= 0
}

// size is the number of usable addresses.
func (p *pool) size() int {
	return 1<<(32-p.prefix.Bits()) - 2
}

// holder returns the key an address is assigned to.
func (p *pool) holder(a netip.Addr) (string, bool) {
	k, ok := p.byIP[a]
	return k, ok
}

// assigned returns the address of a key.
func (p *pool) assigned(key string) (netip.Addr, bool) {
	a, ok := p.byKey[key]
	return a, ok
}

// claim gives a to key, replacing the key's previous address. It fails if
// a is not usable or another key holds it.
func (p *pool) claim(key string, a netip.Addr) error {
	if !p.usable(a) {
		return fmt.Errorf("%s is not a usable address of the pool %s", a, p.prefix)
	}
	if other, ok := p.byIP[a]; ok && other != key {
		return fmt.Errorf("%s is already in use by Service %s", a, other)
	}
	p.release(key)
	p.byKey[key] = a
	p.byIP[a] = key
	return nil
}

// next claims the lowest free address for key.
func (p *pool) next(key string) (netip.Addr, error) {
	// The lowest free address is at most len(byIP) steps from the first.
	for a := p.first; a.IsValid() && a.Compare(p.last) <= 0; a = a.Next() {
		if _, taken := p.byIP[a]; !taken {
			p.byKey[key] = a
			p.byIP[a] = key
			return a, nil
		}
	}
	return netip.Addr{}, fmt.Errorf("%w in the pool %s: all %d addresses are in use", errExhausted, p.prefix, p.size())
}

// release frees the key's address and reports whether it had one.
func (p *pool) release(key string) bool {
	a, ok := p.byKey[key]
	if !ok {
		return false
	}
	delete(p.byKey, key)
	delete(p.byIP, a)
	return true
}
