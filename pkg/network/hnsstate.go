package network

import (
	"crypto/sha256"
	"encoding/hex"
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network/cni"
	"github.com/winkube/winkube/pkg/network/hns"
	"github.com/winkube/winkube/pkg/network/proxy"
)

// hnsState fills the node's HNS: flanneld's network, the CNI's pod
// endpoints, the host endpoint, and what kube-proxy adds.
func (b *builder) hnsState(n *corev1.Node, out *Node, bk cni.Backend, name string) {
	net := b.hnsNetwork(n, out, bk, name)
	st := hns.State{Networks: []hns.Network{net}, Endpoints: []hns.Endpoint{}, LoadBalancers: []hns.LoadBalancer{}}
	deleted := out.Proxy.Running && out.Proxy.HostnameOverride != "" && out.Proxy.HostnameOverride != out.Name
	if host, ok := b.hostEndpoint(out, net); ok {
		st.Endpoints = append(st.Endpoints, host)
	}
	if !deleted { // KP-8: kube-proxy deleted the pods' endpoints
		st.Endpoints = append(st.Endpoints, b.podEndpoints(out, net, bk)...)
	}
	if out.Proxy.Running && !deleted {
		p := b.proxier(out, net, st.Endpoints)
		st.Endpoints = append(st.Endpoints, p.RemoteEndpoints()...)
		st.LoadBalancers = p.LoadBalancers()
		out.Findings = append(out.Findings, p.Findings()...)
	}
	out.HNS = st
}

// hnsNetwork is the network flanneld creates (NET-3, NET-5): the pod
// subnet with gateway .1; on overlay the VSID policy carrying the VNI and
// a RemoteSubnetRoute per other node's subnet.
func (b *builder) hnsNetwork(n *corev1.Node, out *Node, bk cni.Backend, name string) hns.Network {
	net := hns.Network{
		ID: hns.ID(out.Name, "network", name), Name: name, Type: hns.TypeL2Bridge,
		ManagementIP: out.InternalIP.String(),
		Subnets:      []hns.Subnet{{AddressPrefix: out.PodCIDR.String(), GatewayAddress: cni.Gateway(out.PodCIDR).String()}},
	}
	if out.Mode != cni.ModeOverlay {
		return net
	}
	vni := bk.EffectiveVNI("windows")
	net.Type, net.DrMacAddress = hns.TypeOverlay, vtepMAC(n)
	net.Subnets[0].Policies = []hns.Policy{{Type: hns.PolicyVSID, VSID: vni}}
	for _, r := range b.remotes(out.Name) {
		net.Policies = append(net.Policies, hns.Policy{
			Type: hns.PolicyRemoteSubnetRoute, DestinationPrefix: r.PodCIDR.String(),
			ProviderAddress: r.ProviderAddress.String(), DistributedRouterMacAddress: b.vtepMAC(r.Node), IsolationID: vni,
		})
	}
	return net
}

// remotes are the other nodes' flannel leases: pod subnet and address.
func (b *builder) remotes(self string) []proxy.Remote {
	var out []proxy.Remote
	for _, n := range b.nodes {
		p, ok := podCIDR(n)
		ip := internalIP(n)
		if n.Name == self || !ok || !ip.IsValid() {
			continue
		}
		out = append(out, proxy.Remote{Node: n.Name, PodCIDR: p, ProviderAddress: ip})
	}
	return out
}

// vtepMAC is the VTEP MAC another node's flanneld publishes.
func (b *builder) vtepMAC(node string) string {
	for _, n := range b.nodes {
		if n.Name == node {
			return vtepMAC(n)
		}
	}
	return ""
}

// hostEndpoint: on l2bridge the <network>_ep endpoint flanneld creates at
// .2 (NET-3); on overlay the source VIP endpoint kube-proxy creates
// (KP-2).
func (b *builder) hostEndpoint(out *Node, net hns.Network) (hns.Endpoint, bool) {
	ip := cni.HostAddress(out.PodCIDR)
	name := net.Name + "_ep"
	if out.Mode == cni.ModeOverlay {
		if !out.Proxy.Running || !out.Proxy.SourceVIP.IsValid() {
			return hns.Endpoint{}, false
		}
		ip, name = out.Proxy.SourceVIP, "sourcevip"
	}
	return hns.Endpoint{
		ID: proxy.EndpointID(out.Name, ip), Name: name, VirtualNetwork: net.ID, VirtualNetworkName: net.Name,
		IPAddress: ip.String(), PrefixLength: out.PodCIDR.Bits(), MacAddress: hostMAC(out.Name), Host: true,
	}, true
}

// podEndpoints are the endpoints the CNI plugin made for the node's pods
// (NET-4, NET-5): MAC 0E-2A + octets on overlay, the endpoint policies of
// the CNI config (OutBoundNAT with the NET-6 ExceptionList, routes).
func (b *builder) podEndpoints(out *Node, net hns.Network, bk cni.Backend) []hns.Endpoint {
	o := b.cniOptions(out, bk, net.Name)
	pols := endpointPolicies(o)
	gw := cni.PodGateway(out.Mode, out.PodCIDR).String()
	var eps []hns.Endpoint
	for _, p := range b.podsOn[out.Name] {
		ip, ok := podIP(p)
		if !ok {
			continue
		}
		mac := hns.IPMAC(o.MACPrefix, ip)
		if out.Mode == cni.ModeL2Bridge {
			mac = hns.HyperVMAC(out.Name + "/" + ip.String())
		}
		eps = append(eps, hns.Endpoint{
			ID: proxy.EndpointID(out.Name, ip), Name: sandboxID(p) + "_" + net.Name,
			VirtualNetwork: net.ID, VirtualNetworkName: net.Name, IPAddress: ip.String(),
			PrefixLength: out.PodCIDR.Bits(), MacAddress: mac, GatewayAddress: gw,
			Policies: pols, Pod: p.Namespace + "/" + p.Name,
		})
	}
	return eps
}

// endpointPolicies turns the CNI config's policies into HNS ones.
func endpointPolicies(o cni.ConfigOptions) []hns.Policy {
	pols := []hns.Policy{
		{Type: hns.PolicyOutBoundNAT, ExceptionList: cni.ExceptionList(o)},
		{Type: hns.PolicyRoute, DestinationPrefix: o.ServiceCIDR.String(), NeedEncap: true},
	}
	if o.Mode == cni.ModeL2Bridge {
		pols = append(pols, hns.Policy{Type: hns.PolicyRoute, DestinationPrefix: netip.PrefixFrom(o.ManagementIP, 32).String(), NeedEncap: true})
	}
	return pols
}

// podIP is the address of a pod that has an endpoint: not host network,
// not finished, with an IPv4 pod IP.
func podIP(p *corev1.Pod) (netip.Addr, bool) {
	if p.Spec.HostNetwork || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return netip.Addr{}, false
	}
	ip, err := netip.ParseAddr(p.Status.PodIP)
	return ip, err == nil && ip.Is4()
}

// sandboxID stands in for the pod sandbox's container ID, which names
// its endpoint.
func sandboxID(p *corev1.Pod) string {
	h := sha256.Sum256([]byte(p.Namespace + "/" + p.Name + "/" + string(p.UID)))
	return hex.EncodeToString(h[:])
}

// managementSubnet is the node's host network, taken as the /24 around
// its address (the node objects do not carry the mask).
func managementSubnet(out *Node) netip.Prefix {
	if !out.InternalIP.Is4() {
		return netip.Prefix{}
	}
	return netip.PrefixFrom(out.InternalIP, 24).Masked()
}

// proxier runs kube-proxy's winkernel model for the node.
func (b *builder) proxier(out *Node, net hns.Network, local []hns.Endpoint) *proxy.Proxier {
	cfg := proxy.Config{
		NodeName: out.Name, NodeIP: out.InternalIP, Build: out.Build, Overlay: out.Mode == cni.ModeOverlay,
		NetworkName: net.Name, NetworkID: net.ID, SourceVIP: out.Proxy.SourceVIP, HostMAC: hostMAC(out.Name),
		EnableDSR: out.Proxy.EnableDSR, K8sMinor: b.s.K8sMinor,
		LocalEndpoints: map[netip.Addr]string{}, Remotes: b.remotes(out.Name),
	}
	for _, ep := range local {
		if ip, err := netip.ParseAddr(ep.IPAddress); err == nil {
			cfg.LocalEndpoints[ip] = ep.ID
		}
	}
	p := proxy.NewProxier(cfg)
	p.Sync(b.s.Services, b.s.EndpointSlices)
	return p
}
