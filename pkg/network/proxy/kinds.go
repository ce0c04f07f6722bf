package proxy

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network/hns"
)

// portLB makes the load balancers of one Service port (KP-3).
type portLB struct {
	p     *Proxier
	o     *svcOptions
	sp    corev1.ServicePort
	set   *backendSet
	proto int
}

// all: the cluster IP, the node port, each external IP and each load
// balancer ingress IP, in that order.
func (l portLB) all() []hns.LoadBalancer {
	var out []hns.LoadBalancer
	if lb, ok := l.clusterIP(); ok {
		out = append(out, lb)
	}
	if lb, ok := l.nodePort(); ok {
		out = append(out, lb)
	}
	for _, ip := range l.o.externalIPs {
		if lb, ok := l.externalIP(ip.String()); ok {
			out = append(out, lb)
		}
	}
	for _, ip := range l.o.ingressIPs {
		if lb, ok := l.ingress(ip.String()); ok {
			out = append(out, lb)
		}
	}
	return out
}

// clusterIP: DSR with --enable-dsr; internalTrafficPolicy Local keeps
// only the node's own endpoints (KP-6).
func (l portLB) clusterIP() (hns.LoadBalancer, bool) {
	eps := l.set.all
	if l.o.internalLocal {
		eps = l.set.local
	}
	lb := l.make(hns.KindClusterIP, l.o.clusterIP.String(), int(l.sp.Port), eps)
	lb.DSR = l.p.cfg.EnableDSR
	return lb, len(eps) > 0
}

// nodePort: no VIP, routed for the node's own addresses; local endpoints
// only with preserve-destination or a Local traffic policy.
func (l portLB) nodePort() (hns.LoadBalancer, bool) {
	if l.sp.NodePort == 0 || !l.set.available {
		return hns.LoadBalancer{}, false
	}
	eps := l.set.all
	if l.o.preserveDIP || l.o.localTrafficDSR {
		eps = l.set.local
	}
	lb := l.make(hns.KindNodePort, "", int(l.sp.NodePort), eps)
	lb.VipExternalIP, lb.LocalRoutedVIP, lb.DSR = true, true, l.o.localTrafficDSR
	return lb, len(eps) > 0
}

func (l portLB) externalIP(vip string) (hns.LoadBalancer, bool) {
	if !l.set.available {
		return hns.LoadBalancer{}, false
	}
	eps := l.set.all
	if l.o.localTrafficDSR {
		eps = l.set.local
	}
	lb := l.make(hns.KindExternalIP, vip, int(l.sp.Port), eps)
	lb.VipExternalIP, lb.DSR = true, l.o.localTrafficDSR
	return lb, len(eps) > 0
}

func (l portLB) ingress(vip string) (hns.LoadBalancer, bool) {
	eps := l.set.all
	if l.o.preserveDIP || l.o.localTrafficDSR {
		eps = l.set.local
	}
	lb := l.make(hns.KindLoadBalancer, vip, int(l.sp.Port), eps)
	lb.VipExternalIP = true
	lb.DSR = l.o.preserveDIP || l.o.localTrafficDSR
	lb.UseMux, lb.PreserveDIP = l.o.preserveDIP, l.o.preserveDIP
	return lb, len(eps) > 0
}

func (l portLB) make(kind, vip string, external int, eps []string) hns.LoadBalancer {
	vips := []string{}
	if vip != "" {
		vips = []string{vip}
	}
	return hns.LoadBalancer{
		ID:           hns.ID(l.p.cfg.NodeName, "loadbalancer", kind, vip, strconv.Itoa(l.proto), strconv.Itoa(external)),
		FrontendVIPs: vips, SourceVIP: l.set.sourceVIP, Protocol: l.proto,
		InternalPort: l.set.target, ExternalPort: external, Endpoints: eps,
		Distribution: l.o.distribution, Service: l.o.name, Port: portName(l.sp), Kind: kind,
	}
}
