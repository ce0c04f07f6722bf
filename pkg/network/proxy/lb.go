package proxy

import (
	"fmt"
	"net/netip"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/winkube/winkube/pkg/network/hns"
	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

// buildService programs one Service: on overlay an endpoint for its
// cluster IP, then load balancers per port.
func (p *Proxier) buildService(svc *corev1.Service, slices []*discoveryv1.EndpointSlice) *serviceState {
	st := &serviceState{}
	o, ok := p.options(svc, st)
	if !ok {
		return st
	}
	if p.cfg.Overlay {
		// winkernel gives every cluster IP a remote endpoint on the host's
		// MAC so the overlay can route the VIP.
		st.remotes = append(st.remotes, p.remote(o.clusterIP, p.cfg.HostMAC, p.cfg.NodeIP.String(), ""))
	}
	for _, sp := range svc.Spec.Ports {
		p.buildPort(svc, sp, &o, ServiceEndpoints(svc, sp, slices), st)
	}
	p.overlayNodePortIssue(svc, &o, slices, st)
	return st
}

// overlayNodePortIssue: KP-7's first known issue, at the destination
// node. NodePort traffic to the Service's pods on this Windows Server
// 2022 overlay node breaks unless externalTrafficPolicy is Local; HNS
// still holds the load balancer.
func (p *Proxier) overlayNodePortIssue(svc *corev1.Service, o *svcOptions, slices []*discoveryv1.EndpointSlice, st *serviceState) {
	if !p.cfg.Overlay || p.cfg.Build.Build != windows.Build2022 || svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal {
		return
	}
	for _, sp := range svc.Spec.Ports {
		if sp.NodePort == 0 || !hasLocalEndpoint(p, ServiceEndpoints(svc, sp, slices)) {
			continue
		}
		msg := fmt.Sprintf("known issue: NodePort %d of Service %s: traffic to its pods on this Windows Server 2022 overlay node breaks unless the Service sets externalTrafficPolicy: Local", sp.NodePort, o.name)
		st.addFinding(rules.New("KP-7", "", msg).WithFix(p.nodePortFix()))
	}
}

// hasLocalEndpoint reports whether one of eps is a pod of this node.
func hasLocalEndpoint(p *Proxier, eps []Endpoint) bool {
	for _, ep := range eps {
		if p.isLocal(ep) {
			return true
		}
	}
	return false
}

// nodePortFix says how to get around KP-7's NodePort issue without running
// into LIM-12: externalTrafficPolicy Local is unsupported unless kube-proxy
// runs with DSR, so Local is advised only where it has --enable-dsr.
func (p *Proxier) nodePortFix() string {
	if p.cfg.EnableDSR {
		return "set the Service's externalTrafficPolicy: Local (kube-proxy here runs with --enable-dsr, which Local needs, LIM-12), or run its backends on Windows builds other than Server 2022"
	}
	return "run the Service's backends on Windows builds other than Server 2022; or start kube-proxy with --feature-gates=WinDSR=true --enable-dsr=true and then set externalTrafficPolicy: Local, never Local alone: without DSR it is unsupported on Windows (LIM-12)"
}

// buildPort programs the load balancers of one Service port (KP-3).
func (p *Proxier) buildPort(svc *corev1.Service, sp corev1.ServicePort, o *svcOptions, eps []Endpoint, st *serviceState) {
	set := p.backends(eps, o, st)
	if len(set.all) == 0 {
		return // KP-3: no endpoints, no load balancer
	}
	if limit := windows.ServiceBackendLimit(p.cfg.K8sMinor); len(set.all) > limit {
		st.add("LIM-11", "Service %s port %s has %d backends; Windows allows %d per Service, HNS refuses the load balancer and kube-proxy programs none for it", o.name, portName(sp), len(set.all), limit)
		return
	}
	pl := portLB{p: p, o: o, sp: sp, set: &set, proto: ProtocolNumber(sp.Protocol)}
	st.lbs = append(st.lbs, pl.all()...)
}

// backendSet is what one Service port load-balances to on this node.
type backendSet struct {
	all, local []string // endpoint IDs
	target     int
	sourceVIP  string
	// available is false when every endpoint is terminating or none is
	// serving: winkernel then skips the node port and external IP load
	// balancers.
	available bool
}

// backends turns the Service port's endpoints into HNS endpoints: the
// node's own for local pods, remote endpoints for the rest (KP-4).
func (p *Proxier) backends(eps []Endpoint, o *svcOptions, st *serviceState) backendSet {
	usable, available := p.usable(eps, o)
	set := backendSet{available: available}
	containsPublic := false
	for _, ep := range usable {
		ip, _ := netip.ParseAddr(ep.IP)
		local := p.isLocal(ep)
		if set.target == 0 {
			set.target = ep.Port // HNS takes one internal port: the first endpoint's
		}
		if id, ok := p.cfg.LocalEndpoints[ip]; ok {
			set.all = append(set.all, id)
			set.local = append(set.local, id)
		} else if local {
			st.add("KP-3", "Service %s: endpoint %s is on this node but HNS has no endpoint for it (a host-network pod?); kube-proxy leaves it out", o.name, ep.IP)
			continue
		} else {
			r := p.remoteBackend(ip)
			set.all = append(set.all, r.ID)
			st.remotes = append(st.remotes, r)
		}
		if p.cfg.Overlay && !local {
			pa := p.providerAddress(ip)
			containsPublic = containsPublic || !pa.IsValid() || pa == ip
		}
	}
	set.sourceVIP = p.sourceVIP(containsPublic)
	return set
}

// usable filters endpoints as winkernel's sync loop does: ready and
// serving ones, or serving terminating ones when a load balancer ingress
// Service has nothing else.
func (p *Proxier) usable(eps []Endpoint, o *svcOptions) ([]Endpoint, bool) {
	allTerminating, someServing := false, true
	if len(o.ingressIPs) > 0 {
		allTerminating, someServing = p.terminatingState(eps, o)
	}
	available := !allTerminating && someServing
	out := make([]Endpoint, 0, len(eps))
	for _, ep := range eps {
		if o.internalLocal && o.localTrafficDSR && !p.isLocal(ep) {
			continue
		}
		if someServing && ((!allTerminating && !ep.Ready) || !ep.Serving) {
			continue
		}
		out = append(out, ep)
	}
	return out, available
}

// terminatingState reports whether every endpoint that counts is
// terminating, and whether any is serving.
func (p *Proxier) terminatingState(eps []Endpoint, o *svcOptions) (allTerminating, someServing bool) {
	allTerminating = true
	for _, ep := range eps {
		if o.localTrafficDSR && !p.isLocal(ep) {
			continue
		}
		someServing = someServing || ep.Serving
		if ep.Ready && !ep.Terminating {
			allTerminating = false
		}
	}
	return allTerminating, someServing
}

func (p *Proxier) isLocal(ep Endpoint) bool {
	return p.cfg.NodeName != "" && ep.NodeName == p.cfg.NodeName
}

// sourceVIP: on overlay the --source-vip, or the node IP when a backend
// is outside the pod network (a node or public address); none on
// L2Bridge.
func (p *Proxier) sourceVIP(containsPublic bool) string {
	if !p.cfg.Overlay {
		return ""
	}
	if containsPublic || !p.cfg.SourceVIP.IsValid() {
		return p.cfg.NodeIP.String()
	}
	return p.cfg.SourceVIP.String()
}

// providerAddress is the node address a remote IP lives behind: the node
// whose pod subnet holds it, or the node that has it as its address;
// invalid for a public address.
func (p *Proxier) providerAddress(ip netip.Addr) netip.Addr {
	for _, r := range p.cfg.Remotes {
		if r.PodCIDR.Contains(ip) || r.ProviderAddress == ip {
			return r.ProviderAddress
		}
	}
	return netip.Addr{}
}

func (p *Proxier) remoteNode(ip netip.Addr) string {
	for _, r := range p.cfg.Remotes {
		if r.PodCIDR.Contains(ip) || r.ProviderAddress == ip {
			return r.Node
		}
	}
	return ""
}

// remoteBackend is the remote endpoint for a backend on another node
// (KP-4): MAC 02-11 + its octets; on overlay a PA policy with the remote
// node's address, or this node's for a public address.
func (p *Proxier) remoteBackend(ip netip.Addr) hns.Endpoint {
	if ep, ok := p.made[ip]; ok {
		return ep
	}
	pa := ""
	if p.cfg.Overlay {
		pa = p.cfg.NodeIP.String()
		if a := p.providerAddress(ip); a.IsValid() {
			pa = a.String()
		}
	}
	ep := p.remote(ip, hns.IPMAC(hns.RemoteMACPrefix, ip), pa, p.remoteNode(ip))
	p.made[ip] = ep
	return ep
}

func (p *Proxier) remote(ip netip.Addr, mac, pa, node string) hns.Endpoint {
	id := EndpointID(p.cfg.NodeName, ip)
	ep := hns.Endpoint{
		ID: id, Name: id, VirtualNetwork: p.cfg.NetworkID, VirtualNetworkName: p.cfg.NetworkName,
		IPAddress: ip.String(), MacAddress: mac, IsRemoteEndpoint: true, Node: node,
	}
	if pa != "" {
		ep.Policies = []hns.Policy{{Type: hns.PolicyPA, PA: pa}}
	}
	return ep
}

// EndpointID is the ID of the HNS endpoint with address ip on node; HNS
// holds one endpoint per address on a node.
func EndpointID(node string, ip netip.Addr) string {
	return hns.ID(node, "endpoint", ip.String())
}

// ProtocolNumber is the IP protocol number HNS load balancers use for p (KP-3).
func ProtocolNumber(p corev1.Protocol) int {
	switch p {
	case corev1.ProtocolUDP:
		return hns.ProtocolUDP
	case corev1.ProtocolSCTP:
		return hns.ProtocolSCTP
	}
	return hns.ProtocolTCP
}

func portName(sp corev1.ServicePort) string {
	if sp.Name != "" {
		return sp.Name
	}
	return strconv.Itoa(int(sp.Port))
}
