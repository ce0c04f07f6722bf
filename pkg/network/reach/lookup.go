package reach

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
)

// Lookup resolves name as source's resolver would, with the same walk a
// check of that name makes: the address, or a Result that says why the
// name does not resolve (DNS-1 for a partially qualified name in a
// Windows pod). An external name resolves to no address: the model knows
// no upstream resolver's answers.
func (c *Checker) Lookup(source, name string) (netip.Addr, *Result, error) {
	w := &walk{res: &Result{Source: source, Target: name}}
	src, err := c.source(source)
	if err != nil {
		return netip.Addr{}, nil, err
	}
	for range 8 { // CNAME chains (ExternalName Services) end or are cut
		tgt, ok, err := c.resolve(w, src, name)
		if err != nil || !ok {
			return netip.Addr{}, w.finish(), err
		}
		if tgt.ip.IsValid() {
			w.pass("resolved to " + tgt.ip.String())
			return tgt.ip, w.finish(), nil
		}
		if tgt.name == "" || tgt.name == name {
			break
		}
		name = tgt.name
	}
	w.fail(name + " is not a cluster name, and the emulated cluster has no upstream resolver")
	return netip.Addr{}, w.finish(), nil
}

// pick chooses one of n backends of svc for a connection from src: the
// first for a check (its answer must not change between runs), the
// Checker's Pick when the data plane balances real connections.
func (c *Checker) pick(svc *corev1.Service, src netip.Addr, n int) int {
	if c.Pick == nil || n <= 1 {
		return 0
	}
	return c.Pick(svc, src, n) % n
}

// Known reports whether ip is an address of the cluster: a Service's
// (ClusterIP, externalIP, load balancer ingress), a running pod's or a
// node's. Anything else lies outside, where the emulation has no hosts.
func (c *Checker) Known(ip netip.Addr) bool {
	t := c.byIP(ip)
	return t.vip != nil || t.pod != nil || t.node != nil
}
