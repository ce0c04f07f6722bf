package reach

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network"
	"github.com/winkube/winkube/pkg/network/hns"
	"github.com/winkube/winkube/pkg/network/proxy"
	"github.com/winkube/winkube/pkg/windows"
)

// toNode follows a connection to a node's address: a NodePort when the
// port is one, the node itself otherwise.
func (c *Checker) toNode(w *walk, src *source, n *network.Node) {
	if w.res.Protocol != ICMP && w.res.Port > 0 {
		if svc, sp := c.nodePort(w.res.Port, w.res.Protocol); svc != nil {
			c.toNodePort(w, src, n, svc, sp)
			return
		}
	}
	switch {
	case src.external() || src.pod == nil:
		w.hop(src.at(), "%s → %s on the host network", src.label, n.InternalIP)
		w.pass(fmt.Sprintf("node %s (%s) is on the host network", n.Name, n.InternalIP))
	default:
		if !c.leavePodNetwork(w, src, n.InternalIP) {
			return
		}
		w.hop(n.Name, "delivered to node %s (%s)", n.Name, n.InternalIP)
		w.pass(fmt.Sprintf("pod → node %s (%s)", n.Name, n.InternalIP), "NET-9")
	}
}

// nodePort finds the Service port that owns a node port.
func (c *Checker) nodePort(port int, proto string) (*corev1.Service, *corev1.ServicePort) {
	want := corev1.ProtocolTCP
	if proto == UDP {
		want = corev1.ProtocolUDP
	}
	for _, key := range sortedKeys(c.services) {
		svc := c.services[key]
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			if int(sp.NodePort) == port && proxy.Protocol(sp.Protocol) == want {
				return svc, sp
			}
		}
	}
	return nil, nil
}

// toNodePort: the NodePort load balancer of the receiving node.
func (c *Checker) toNodePort(w *walk, src *source, n *network.Node, svc *corev1.Service, sp *corev1.ServicePort) {
	name := svc.Namespace + "/" + svc.Name
	w.hop(n.Name, "port %d is the NodePort of Service %s port %d", sp.NodePort, name, sp.Port)
	if src.pod == nil && !src.external() && src.node.Name == n.Name && n.OS == "windows" {
		w.fail(fmt.Sprintf("a Windows node cannot reach its own NodePort (%s:%d); other nodes and external clients can", n.InternalIP, sp.NodePort), "LIM-16", "TS-4")
		return
	}
	if n.OS == "windows" && !c.nodePortWorks(w, n, svc) {
		return
	}
	if src.pod != nil && !c.leavePodNetwork(w, src, n.InternalIP) {
		return
	}
	from := src
	if src.external() || src.pod == nil || src.node.Name != n.Name {
		from = &source{label: "node/" + n.Name, node: n, ip: n.InternalIP, forwarded: true}
	}
	c.serviceFrom(w, from, n, svc, sp, hns.KindNodePort, n.InternalIP.String())
}

// nodePortWorks applies the Windows NodePort rule no load balancer shows:
// a Local policy without --enable-dsr is what the docs call unsupported
// (LIM-12); kube-proxy (winkernel) still keeps that traffic on local
// endpoints with DSR where the build has it, and the walk follows
// kube-proxy. (KP-7's overlay issue is the backend's node's:
// nodePortReachesBackend.)
func (c *Checker) nodePortWorks(w *walk, n *network.Node, svc *corev1.Service) bool {
	local := svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
	if local && !n.Proxy.EnableDSR {
		w.hop(n.Name, "externalTrafficPolicy Local without --enable-dsr: unsupported per the Windows docs; kube-proxy keeps the traffic on local endpoints")
		w.rule("LIM-12")
	}
	return true
}

// nodePortReachesBackend applies KP-7's overlay issue where the seed puts
// it, at the destination node: NodePort traffic load-balanced to a
// backend on a Windows Server 2022 overlay node breaks unless the Service
// sets externalTrafficPolicy: Local (service.OverlayNodePortIssue, which
// lint and doctor ask, says the same of the Service).
func (c *Checker) nodePortReachesBackend(w *walk, svc *corev1.Service, backend netip.AddrPort) bool {
	if svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal {
		return true
	}
	p, ok := c.podsByIP[backend.Addr()]
	if !ok {
		return true
	}
	n := c.m.Node(p.Spec.NodeName)
	if n == nil || n.OS != "windows" || n.Mode != "overlay" || n.Build.Build != windows.Build2022 {
		return true
	}
	w.fail(fmt.Sprintf("known issue: NodePort traffic to pod %s/%s on %s (Windows Server 2022, overlay) breaks unless the Service sets externalTrafficPolicy: Local", p.Namespace, p.Name, n.Name), "KP-7")
	return false
}

// leavePodNetwork takes a packet from src's pod out of the pod network to
// an address outside it: OutBoundNAT rewrites the source to the node IP
// unless the destination is in the ExceptionList (NET-6), and VFP cannot
// rewrite ICMP, so ICMP that needs NAT never comes back (LIM-17).
func (c *Checker) leavePodNetwork(w *walk, src *source, dst netip.Addr) bool {
	if !src.windows() {
		w.hop(src.node.Name, "masqueraded to the node IP %s (iptables)", src.node.InternalIP)
		return true
	}
	nat, excepted := outboundNAT(src.node, dst)
	switch {
	case nat == nil:
		w.hop(src.node.Name, "no OutBoundNAT policy: leaves with the pod IP %s", src.ip)
		if w.res.Protocol == ICMP {
			return true
		}
		w.fail(fmt.Sprintf("the HNS network on %s has no OutBoundNAT policy, so traffic to %s leaves with the pod IP and the reply cannot find its way back", src.node.Name, dst), "NET-6", "TS-3")
		return false
	case excepted.IsValid():
		w.hop(src.node.Name, "%s is in the OutBoundNAT ExceptionList (%s): not NATed", dst, excepted)
		w.rule("NET-6")
		return true
	}
	if w.res.Protocol == ICMP {
		w.fail(fmt.Sprintf("ICMP from a Windows pod to %s needs OutBoundNAT, which VFP cannot apply to ICMP: the reply never returns; test with curl instead of ping", dst), "LIM-17", "TS-3")
		return false
	}
	w.hop(src.node.Name, "OutBoundNAT: source %s → %s", src.ip, src.node.InternalIP)
	w.rule("NET-6")
	return true
}

// outboundNAT finds the OutBoundNAT policy of the pod's endpoint or
// network, and the ExceptionList entry that covers dst, if any.
func outboundNAT(n *network.Node, dst netip.Addr) (*hns.Policy, netip.Prefix) {
	var pols []hns.Policy
	for _, ep := range n.HNS.Endpoints {
		if !ep.IsRemoteEndpoint && !ep.Host {
			pols = append(pols, ep.Policies...)
			break
		}
	}
	for _, net := range n.HNS.Networks {
		pols = append(pols, net.Policies...)
	}
	for i := range pols {
		if pols[i].Type != hns.PolicyOutBoundNAT {
			continue
		}
		for _, e := range pols[i].ExceptionList {
			if p, err := netip.ParsePrefix(e); err == nil && p.Contains(dst) {
				return &pols[i], p
			}
			if a, err := netip.ParseAddr(e); err == nil && a == dst {
				return &pols[i], netip.PrefixFrom(a, a.BitLen())
			}
		}
		return &pols[i], netip.Prefix{}
	}
	return nil, netip.Prefix{}
}
