// Package proxy is kube-proxy's winkernel mode as a pure function: from a
// node's proxy settings, Services and EndpointSlices it computes the HNS
// load balancers and remote endpoints kube-proxy would program on that
// Windows node (KP-3 … KP-7, LIM-10 … LIM-13). One node's state is built
// from scratch by Sync and kept current one EndpointSlice at a time by
// Update, the way kube-proxy's change trackers feed its sync loop.
package proxy

import (
	"net/netip"
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// Endpoint is one backend of a Service port as kube-proxy sees it in the
// EndpointSlices: address, target port, node and conditions.
type Endpoint struct {
	IP       string `json:"ip"`
	Port     int    `json:"port"`
	NodeName string `json:"nodeName,omitempty"`
	// Ready, Serving and Terminating are the EndpointSlice conditions as
	// kube-proxy reads them: unset ready or serving count as true, unset
	// terminating as false.
	Ready       bool `json:"ready"`
	Serving     bool `json:"serving"`
	Terminating bool `json:"terminating"`
}

// ServiceEndpoints lists the endpoints of one Service port from the
// EndpointSlices labelled with the Service's name in its namespace, as
// kube-proxy merges them: the slice port with the same name and protocol
// gives the target port, the first address of each endpoint is used,
// duplicates across slices count once, FQDN slices are ignored. Sorted by
// IP, then port. Works for any node OS.
func ServiceEndpoints(svc *corev1.Service, port corev1.ServicePort, slices []*discoveryv1.EndpointSlice) []Endpoint {
	if svc == nil {
		return nil
	}
	seen := map[netip.AddrPort]bool{}
	var out []Endpoint
	for _, s := range slices {
		if s == nil || s.Namespace != svc.Namespace || s.Labels[discoveryv1.LabelServiceName] != svc.Name {
			continue
		}
		out = appendSliceEndpoints(out, seen, s, port)
	}
	sortEndpoints(out)
	return out
}

// appendSliceEndpoints adds the endpoints of one slice for port.
func appendSliceEndpoints(out []Endpoint, seen map[netip.AddrPort]bool, s *discoveryv1.EndpointSlice, port corev1.ServicePort) []Endpoint {
	if s.AddressType != discoveryv1.AddressTypeIPv4 && s.AddressType != discoveryv1.AddressTypeIPv6 {
		return out
	}
	num, ok := slicePort(s, port)
	if !ok {
		return out
	}
	for i := range s.Endpoints {
		ep := &s.Endpoints[i]
		if len(ep.Addresses) == 0 {
			continue
		}
		ip, err := netip.ParseAddr(ep.Addresses[0])
		if err != nil {
			continue
		}
		key := netip.AddrPortFrom(ip, uint16(num))
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, newEndpoint(ip, num, ep))
	}
	return out
}

func newEndpoint(ip netip.Addr, port int, ep *discoveryv1.Endpoint) Endpoint {
	c := ep.Conditions
	ready := c.Ready == nil || *c.Ready
	serving := c.Serving == nil || *c.Serving
	e := Endpoint{IP: ip.String(), Port: port, Ready: ready, Serving: serving,
		Terminating: c.Terminating != nil && *c.Terminating}
	if ep.NodeName != nil {
		e.NodeName = *ep.NodeName
	}
	return e
}

// slicePort finds the slice port serving the Service port: same name
// (both empty for a single unnamed port) and protocol.
func slicePort(s *discoveryv1.EndpointSlice, port corev1.ServicePort) (int, bool) {
	want := Protocol(port.Protocol)
	for _, p := range s.Ports {
		name := ""
		if p.Name != nil {
			name = *p.Name
		}
		proto := corev1.ProtocolTCP
		if p.Protocol != nil {
			proto = *p.Protocol
		}
		if name == port.Name && proto == want && p.Port != nil {
			return int(*p.Port), true
		}
	}
	return 0, false
}

// Protocol is a port's protocol, TCP when unset as the API defaults it.
func Protocol(p corev1.Protocol) corev1.Protocol {
	if p == "" {
		return corev1.ProtocolTCP
	}
	return p
}

func sortEndpoints(eps []Endpoint) {
	sort.Slice(eps, func(i, j int) bool {
		a, _ := netip.ParseAddr(eps[i].IP)
		b, _ := netip.ParseAddr(eps[j].IP)
		if c := a.Compare(b); c != 0 {
			return c < 0
		}
		return eps[i].Port < eps[j].Port
	})
}
