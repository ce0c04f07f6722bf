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
// model sorts them.
func (c *Checker) endpointsOf(svc *corev1.Service, sp *corev1.ServicePort) []endpoint {
	if c.m.Snapshot == nil {
		return nil
	}
	var out []endpoint
	for _, e := range proxy.ServiceEndpoints(svc, *sp, c.m.Snapshot.EndpointSlices) {
		if !e.Ready {
			continue
		}
		ip, err := netip.ParseAddr(e.IP)
		if err != nil {
			continue
		}
		out = append(out, endpoint{addr: netip.AddrPortFrom(ip, uint16(e.Port)), node: e.NodeName})
	}
	return out
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
