package reach

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network"
	"github.com/winkube/winkube/pkg/network/hns"
	"github.com/winkube/winkube/pkg/network/proxy"
)

// toService follows a connection to a Service address: a ClusterIP, an
// externalIP or a load balancer ingress IP.
func (c *Checker) toService(w *walk, src *source, v *vip) {
	svc := v.svc
	name := svc.Namespace + "/" + svc.Name
	sp, ok := servicePort(svc, w.res.Port, w.res.Protocol)
	if !ok {
		w.fail(fmt.Sprintf("Service %s has no port %d/%s", name, w.res.Port, w.res.Protocol))
		return
	}
	if w.res.Protocol == ICMP {
		w.fail(fmt.Sprintf("%s is a Service VIP: it is load-balanced for TCP, UDP and SCTP only, so ping gets no reply; test it with curl", w.res.ResolvedIP), icmpRule(src))
		return
	}
	w.res.Port = int(sp.Port)
	switch {
	case src.external() && v.kind == hns.KindClusterIP:
		w.fail(fmt.Sprintf("%s is a ClusterIP: it is reachable only from pods and nodes of the cluster", w.res.ResolvedIP))
	case src.external():
		c.fromOutside(w, svc, sp, v.kind)
	case src.pod == nil && src.windows():
		w.fail(fmt.Sprintf("a Windows node cannot reach Service VIPs itself (%s); its pods and other nodes can", w.res.ResolvedIP), "LIM-16", "TS-9")
	default:
		c.serviceFrom(w, src, src.node, svc, sp, v.kind, w.res.ResolvedIP)
	}
}

// fromOutside: traffic to an external or load balancer IP arrives at a
// node; with externalTrafficPolicy Local only nodes with a local backend
// receive it (the health check takes the others out).
func (c *Checker) fromOutside(w *walk, svc *corev1.Service, sp *corev1.ServicePort, kind string) {
	local := svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
	eps := c.endpointsOf(svc, sp)
	var entry *network.Node
	for _, n := range c.m.Nodes {
		if !local || hasLocal(eps, n.Name) {
			entry = n
			break
		}
	}
	if entry == nil {
		w.fail(fmt.Sprintf("Service %s/%s has no ready endpoints to send %s traffic to", svc.Namespace, svc.Name, kind), "KP-3")
		return
	}
	w.hop("external", "%s arrives at node %s (%s)", w.res.ResolvedIP, entry.Name, entry.InternalIP)
	c.serviceFrom(w, &source{label: "external"}, entry, svc, sp, kind, w.res.ResolvedIP)
}

// serviceFrom load-balances at node n: HNS load balancers on Windows,
// iptables rules on Linux; then delivers to the chosen backend.
func (c *Checker) serviceFrom(w *walk, src *source, n *network.Node, svc *corev1.Service, sp *corev1.ServicePort, kind, frontend string) {
	var backend netip.AddrPort
	var ok bool
	if n.OS == "windows" {
		backend, ok = c.windowsLB(w, n, svc, sp, kind, frontend)
	} else {
		backend, ok = c.linuxLB(w, n, svc, sp, kind)
	}
	if !ok {
		return
	}
	w.rule("KP-3")
	if kind == hns.KindNodePort && !c.nodePortReachesBackend(w, svc, backend) {
		return
	}
	c.toBackend(w, src, n, backend)
}

// windowsLB finds the load balancer kube-proxy programmed on n for the
// Service port, or says why there is none.
func (c *Checker) windowsLB(w *walk, n *network.Node, svc *corev1.Service, sp *corev1.ServicePort, kind, frontend string) (netip.AddrPort, bool) {
	name := svc.Namespace + "/" + svc.Name
	if !c.proxyRuns(w, n) {
		return netip.AddrPort{}, false
	}
	port := int(sp.Port)
	if kind == hns.KindNodePort {
		port = int(sp.NodePort)
	}
	lb := findLB(n, kind, frontend, port, sp.Protocol)
	if lb == nil {
		c.noLB(w, n, svc, sp, kind)
		return netip.AddrPort{}, false
	}
	if !w.quiet {
		w.hop(n.Name, "HNS load balancer %s %s:%d/%s → %s%s", kind, frontend, lb.ExternalPort, protoName(sp.Protocol), backends(len(lb.Endpoints)), lbFlags(lb))
	}
	first := c.pick(svc, w.srcIP, len(lb.Endpoints))
	for i := range lb.Endpoints {
		id := lb.Endpoints[(first+i)%len(lb.Endpoints)]
		if ep := endpointByID(n, id); ep != nil {
			ip, err := netip.ParseAddr(ep.IPAddress)
			if err == nil {
				return netip.AddrPortFrom(ip, uint16(lb.InternalPort)), true
			}
		}
	}
	w.fail(fmt.Sprintf("the load balancer of %s on %s has no endpoints", name, n.Name), "KP-3")
	return netip.AddrPort{}, false
}

// noLB explains a missing load balancer on a Windows node.
func (c *Checker) noLB(w *walk, n *network.Node, svc *corev1.Service, sp *corev1.ServicePort, kind string) {
	name := svc.Namespace + "/" + svc.Name
	eps := c.endpointsOf(svc, sp)
	switch {
	case len(eps) == 0:
		w.fail(fmt.Sprintf("Service %s has no ready endpoints for port %d: kube-proxy programs no load balancer for it on %s", name, sp.Port, n.Name), "KP-3")
	case kind == hns.KindClusterIP && svc.Spec.InternalTrafficPolicy != nil && *svc.Spec.InternalTrafficPolicy == corev1.ServiceInternalTrafficPolicyLocal && !hasLocal(eps, n.Name):
		w.fail(fmt.Sprintf("Service %s has internalTrafficPolicy Local and no ready endpoint on %s", name, n.Name), "KP-6")
	case kind != hns.KindClusterIP && svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal && !hasLocal(eps, n.Name):
		w.fail(fmt.Sprintf("Service %s has externalTrafficPolicy Local and no ready endpoint on %s, so the node drops external traffic (a load balancer's health check keeps it away)", name, n.Name), "KP-3")
	default:
		why := "kube-proxy programmed no load balancer for it"
		if f := findingOf(n.Findings, "LIM-12", "KP-7", "LIM-11", "LIM-13"); f != nil {
			w.fail(fmt.Sprintf("Service %s port %d on %s: %s", name, sp.Port, n.Name, f.Message), f.Rule)
			return
		}
		w.fail(fmt.Sprintf("Service %s port %d on %s: %s", name, sp.Port, n.Name, why), "KP-3")
	}
}

// proxyRuns reports whether kube-proxy runs on a Windows node, failing the
// walk with the reason when it does not.
func (c *Checker) proxyRuns(w *walk, n *network.Node) bool {
	if n.Proxy.Found && n.Proxy.Running {
		return true
	}
	if !n.Proxy.Found {
		w.fail(fmt.Sprintf("no kube-proxy runs on %s (no Windows kube-proxy DaemonSet covers it), so no Service load balancers exist there", n.Name), "TS-1")
		return false
	}
	if f := findingOf(n.Findings, "KP-1", "KP-2"); f != nil {
		w.fail(fmt.Sprintf("kube-proxy on %s does not start: %s", n.Name, f.Message), f.Rule, "TS-1")
		return false
	}
	w.fail(fmt.Sprintf("kube-proxy on %s does not start", n.Name), "TS-1")
	return false
}

// linuxLB is iptables-mode kube-proxy: every ready endpoint, or the local
// ones for a Local traffic policy; no endpoints means a reject.
func (c *Checker) linuxLB(w *walk, n *network.Node, svc *corev1.Service, sp *corev1.ServicePort, kind string) (netip.AddrPort, bool) {
	name := svc.Namespace + "/" + svc.Name
	eps := c.endpointsOf(svc, sp)
	local := kind == hns.KindClusterIP && svc.Spec.InternalTrafficPolicy != nil && *svc.Spec.InternalTrafficPolicy == corev1.ServiceInternalTrafficPolicyLocal ||
		kind != hns.KindClusterIP && svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
	if local {
		eps = localOnly(eps, n.Name)
	}
	if len(eps) == 0 {
		rule := "KP-3"
		if local && kind == hns.KindClusterIP {
			rule = "KP-6"
		}
		w.fail(fmt.Sprintf("Service %s has no ready endpoints for port %d reachable from %s: kube-proxy (iptables) rejects the connection", name, sp.Port, n.Name), rule)
		return netip.AddrPort{}, false
	}
	if !w.quiet {
		w.hop(n.Name, "iptables: %s %s:%d/%s → %s", kind, w.res.ResolvedIP, sp.Port, protoName(sp.Protocol), backends(len(eps)))
	}
	return eps[c.pick(svc, w.srcIP, len(eps))].addr, true
}

// toBackend delivers from the load-balancing node n to the backend address.
func (c *Checker) toBackend(w *walk, src *source, n *network.Node, backend netip.AddrPort) {
	w.res.backend = backend
	p, ok := c.podsByIP[backend.Addr()]
	if !ok {
		w.res.Backend = backend.String()
		w.pass(fmt.Sprintf("load-balanced to %s", backend), "NET-9")
		return
	}
	w.res.Backend = fmt.Sprintf("pod/%s/%s %s", p.Namespace, p.Name, backend)
	from := src
	if src.external() || src.pod == nil {
		// The load balancer forwards from node n; its remote endpoints are
		// kube-proxy's (KP-4), not node-to-pod traffic.
		from = &source{label: "node/" + n.Name, node: n, ip: n.InternalIP, forwarded: true}
	}
	c.toPod(w, from, p, int(backend.Port()))
}

func findLB(n *network.Node, kind, frontend string, port int, proto corev1.Protocol) *hns.LoadBalancer {
	want := proxy.ProtocolNumber(proto)
	for i := range n.HNS.LoadBalancers {
		lb := &n.HNS.LoadBalancers[i]
		if lb.Kind != kind || lb.Protocol != want {
			continue
		}
		if kind == hns.KindNodePort {
			if lb.ExternalPort == port {
				return lb
			}
			continue
		}
		if lb.ExternalPort == port && slices.Contains(lb.FrontendVIPs, frontend) {
			return lb
		}
	}
	return nil
}

func endpointByID(n *network.Node, id string) *hns.Endpoint {
	for i := range n.HNS.Endpoints {
		if n.HNS.Endpoints[i].ID == id {
			return &n.HNS.Endpoints[i]
		}
	}
	return nil
}

func lbFlags(lb *hns.LoadBalancer) string {
	if f := lb.Flags(); len(f) > 0 {
		return " (" + strings.Join(f, ", ") + ")"
	}
	return ""
}

func backends(n int) string {
	if n == 1 {
		return "1 backend"
	}
	return fmt.Sprintf("%d backends", n)
}
