package reach

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network"
)

// source is where a connection starts.
type source struct {
	label string
	pod   *corev1.Pod   // a pod source
	node  *network.Node // the pod's node, or the node source; nil for external
	ip    netip.Addr
	// forwarded marks a node's load balancer sending on for another
	// source: it uses kube-proxy's remote endpoints, not the node's route.
	forwarded bool
}

func (s *source) external() bool { return s.node == nil }
func (s *source) windows() bool  { return s.node != nil && s.node.OS == "windows" }

// at names the place a hop happens at the source.
func (s *source) at() string {
	if s.node == nil {
		return "external"
	}
	return s.node.Name
}

func (c *Checker) source(ref string) (*source, error) {
	if ref == "external" {
		return &source{label: ref}, nil
	}
	kind, parts := splitRef(ref)
	switch {
	case kind == "pod" && len(parts) == 2:
		p, ok := c.pods[parts[0]+"/"+parts[1]]
		if !ok {
			return nil, inputErr("source %s: no pod %q in namespace %q", ref, parts[1], parts[0])
		}
		s := &source{label: ref, pod: p, node: c.m.Node(p.Spec.NodeName)}
		if s.node == nil {
			return nil, inputErr("source %s: the pod is not scheduled to a node yet", ref)
		}
		if p.Spec.HostNetwork {
			s.ip = s.node.InternalIP
		} else if ip, err := netip.ParseAddr(p.Status.PodIP); err == nil {
			s.ip = ip
		}
		return s, nil
	case kind == "node" && len(parts) == 1:
		n := c.m.Node(parts[0])
		if n == nil {
			return nil, inputErr("source %s: no node %q", ref, parts[0])
		}
		return &source{label: ref, node: n, ip: n.InternalIP}, nil
	}
	return nil, inputErr("source %q: want pod/NAMESPACE/NAME, node/NAME or external", ref)
}

// target is where a connection goes, once resolved to an address.
type target struct {
	pod  *corev1.Pod
	vip  *vip
	node *network.Node
	ip   netip.Addr // zero for an external name nobody here resolves
	name string     // an external DNS name
}

// target resolves a target reference; names are resolved as src's
// resolver would (DNS-1 on Windows pods).
func (c *Checker) target(w *walk, src *source, ref string) (*target, bool, error) {
	kind, parts := splitRef(ref)
	switch {
	case kind == "pod" && len(parts) == 2:
		p, ok := c.pods[parts[0]+"/"+parts[1]]
		if !ok {
			return nil, false, inputErr("target %s: no pod %q in namespace %q", ref, parts[1], parts[0])
		}
		ip, _ := netip.ParseAddr(p.Status.PodIP)
		if p.Spec.HostNetwork {
			if n := c.m.Node(p.Spec.NodeName); n != nil {
				ip = n.InternalIP
			}
		}
		return &target{pod: p, ip: ip}, true, nil
	case kind == "svc" && len(parts) == 2:
		s, ok := c.services[parts[0]+"/"+parts[1]]
		if !ok {
			return nil, false, inputErr("target %s: no Service %q in namespace %q", ref, parts[1], parts[0])
		}
		return c.serviceTarget(w, src, s)
	case kind == "node" && len(parts) == 1:
		n := c.m.Node(parts[0])
		if n == nil {
			return nil, false, inputErr("target %s: no node %q", ref, parts[0])
		}
		return &target{node: n, ip: n.InternalIP}, true, nil
	case kind != "":
		return nil, false, inputErr("target %q: want pod/NAMESPACE/NAME, svc/NAMESPACE/NAME, node/NAME, an IP or a DNS name", ref)
	}
	if ip, err := netip.ParseAddr(ref); err == nil {
		return c.byIP(ip), true, nil
	}
	if !validName(ref) {
		return nil, false, inputErr("target %q: not an IP address or a DNS name", ref)
	}
	return c.resolve(w, src, ref)
}

// serviceTarget is a Service's ClusterIP; a headless Service has none, so
// its first ready pod stands in, as its DNS name would answer. From
// outside the cluster the ClusterIP is no way in: a load balancer's
// ingress IP or an external IP is, when the Service has one.
func (c *Checker) serviceTarget(w *walk, src *source, s *corev1.Service) (*target, bool, error) {
	if src.external() {
		if ip, how, ok := outsideAddress(s); ok {
			w.hop("external", "Service %s/%s: %s %s", s.Namespace, s.Name, how, ip)
			return c.byIP(ip), true, nil
		}
	}
	switch {
	case s.Spec.Type == corev1.ServiceTypeExternalName:
		w.hop("dns", "Service %s/%s is ExternalName: %s", s.Namespace, s.Name, s.Spec.ExternalName)
		return &target{name: s.Spec.ExternalName}, true, nil
	case s.Spec.ClusterIP == corev1.ClusterIPNone:
		for _, p := range c.podsOf(s.Namespace) {
			if selects(s, p) && isRunning(p) {
				ip, _ := netip.ParseAddr(p.Status.PodIP)
				w.hop("dns", "headless Service %s/%s: pod %s (%s)", s.Namespace, s.Name, p.Name, ip)
				return &target{pod: p, ip: ip}, true, nil
			}
		}
		w.fail(fmt.Sprintf("headless Service %s/%s has no ready pods", s.Namespace, s.Name))
		return nil, false, nil
	}
	ip, err := netip.ParseAddr(s.Spec.ClusterIP)
	if err != nil {
		return nil, false, inputErr("Service %s/%s has no ClusterIP yet", s.Namespace, s.Name)
	}
	return c.byIP(ip), true, nil
}

// outsideAddress is the first address a client outside the cluster can
// use for s: its load balancer's ingress IP, else an external IP.
func outsideAddress(s *corev1.Service) (netip.Addr, string, bool) {
	for _, in := range s.Status.LoadBalancer.Ingress {
		if ip, err := netip.ParseAddr(in.IP); err == nil {
			return ip, "load balancer ingress", true
		}
	}
	for _, e := range s.Spec.ExternalIPs {
		if ip, err := netip.ParseAddr(e); err == nil {
			return ip, "external IP", true
		}
	}
	return netip.Addr{}, "", false
}

func selects(s *corev1.Service, p *corev1.Pod) bool {
	if len(s.Spec.Selector) == 0 {
		return false
	}
	for k, v := range s.Spec.Selector {
		if p.Labels[k] != v {
			return false
		}
	}
	return true
}

// byIP classifies an address: a Service VIP, a pod, a node or external.
func (c *Checker) byIP(ip netip.Addr) *target {
	if v, ok := c.vips[ip]; ok {
		return &target{vip: &v, ip: ip}
	}
	if p, ok := c.podsByIP[ip]; ok {
		return &target{pod: p, ip: ip}
	}
	if n, ok := c.nodeByIP[ip]; ok {
		return &target{node: n, ip: ip}
	}
	return &target{ip: ip}
}

// validName accepts DNS names: labels of letters, digits and '-', dots
// between them, an optional trailing dot.
func validName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	label := 0
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '.':
			if label == 0 && i != len(s)-1 {
				return false
			}
			label = 0
		case ch == '-' || ch == '_' || ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z':
			label++
			if label > 63 {
				return false
			}
		default:
			return false
		}
	}
	return true
}
