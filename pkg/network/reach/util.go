package reach

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network/proxy"
	"github.com/winkube/winkube/pkg/rules"
)

// endpoint is one ready backend of a Service port.
type endpoint struct {
	addr netip.AddrPort
	node string
}

// endpointsOf lists the ready backends of a Service port, sorted as the
// model sorts them. Finding them scans every EndpointSlice of the
// snapshot, so each port's list is kept for the Checker's life (it is a
// snapshot's): the pod network asks on every connection. Callers must not
// change the list.
func (c *Checker) endpointsOf(svc *corev1.Service, sp *corev1.ServicePort) []endpoint {
	if c.m.Snapshot == nil {
		return nil
	}
	k := epKey{svc: svc, port: sp.Port, proto: sp.Protocol, name: sp.Name}
	c.epMu.Lock()
	eps, ok := c.eps[k]
	c.epMu.Unlock()
	if ok {
		return eps
	}
	for _, e := range proxy.ServiceEndpoints(svc, *sp, c.m.Snapshot.EndpointSlices) {
		if !e.Ready {
			continue
		}
		ip, err := netip.ParseAddr(e.IP)
		if err != nil {
			continue
		}
		eps = append(eps, endpoint{addr: netip.AddrPortFrom(ip, uint16(e.Port)), node: e.NodeName})
	}
	c.epMu.Lock()
	if c.eps == nil {
		c.eps = map[epKey][]endpoint{}
	}
	c.eps[k] = eps
	c.epMu.Unlock()
	return eps
}

// epKey names a Service port of the snapshot.
type epKey struct {
	svc   *corev1.Service
	port  int32
	proto corev1.Protocol
	name  string
}

func hasLocal(eps []endpoint, node string) bool { return len(localOnly(eps, node)) > 0 }

func localOnly(eps []endpoint, node string) []endpoint {
	var out []endpoint
	for _, e := range eps {
		if e.node == node {
			out = append(out, e)
		}
	}
	return out
}

// findingOf returns the first finding with one of the rule IDs.
func findingOf(fs []rules.Finding, ids ...string) *rules.Finding {
	for i := range fs {
		for _, r := range ids {
			if fs[i].Rule == r {
				return &fs[i]
			}
		}
	}
	return nil
}

// icmpRule is LIM-17 for Windows sources.
func icmpRule(src *source) string {
	if src.windows() {
		return "LIM-17"
	}
	return ""
}
