package network

import (
	"fmt"
	"net"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network/cni"
	"github.com/winkube/winkube/pkg/network/hns"
	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

// windowsNode builds a Windows node: build, flannel's network, kube-proxy
// and what they leave in HNS.
func (b *builder) windowsNode(n *corev1.Node, out *Node) {
	if build, err := nodeBuild(n); err != nil {
		out.finding("KP-5", "%v: the model cannot tell which kube-proxy features the node has", err)
	} else {
		out.Build = build
	}
	bk := b.backendFor(n, out)
	out.Mode = cni.ModeOverlay
	if bk.Type == cni.BackendHostGW {
		out.Mode = cni.ModeL2Bridge
	}
	network := ""
	if b.flannelRuns(bk, out) {
		network = chooseNetwork(bk, proxyNetworkName(b.proxies, b.s.ConfigMaps, n))
	}
	out.Findings = append(out.Findings, readProxy(b.proxies, b.s.ConfigMaps, proxyInput{node: n, n: out, network: network, minor: b.s.K8sMinor})...)
	if network == "" {
		out.HNS = hns.State{Networks: []hns.Network{}, Endpoints: []hns.Endpoint{}, LoadBalancers: []hns.LoadBalancer{}}
		return
	}
	b.flannelFiles(n, out, bk, network)
	b.hnsState(n, out, bk, network)
	b.knownIssues(out)
}

// backendFor is the flannel backend the node's flanneld runs: net-conf.json,
// else the node's backend-type annotation, else VXLAN with VNI 4096.
func (b *builder) backendFor(n *corev1.Node, out *Node) cni.Backend {
	if b.hasConf {
		return b.netConf.Backend
	}
	switch t := n.Annotations[cni.AnnotationBackendType]; t {
	case cni.BackendVXLAN, cni.BackendHostGW:
		bk := cni.Backend{Type: t}
		if d, err := cni.ParseBackendData(n.Annotations[cni.AnnotationBackendData]); err == nil && t == cni.BackendVXLAN {
			bk.VNI = d.VNI
		}
		return bk
	}
	out.findingCase("PLAN-2", "assumed", "no flannel net-conf.json and no %s annotation on %s: assuming flannel VXLAN with VNI 4096 on port 4789", cni.AnnotationBackendType, n.Name)
	return cni.Backend{Type: cni.BackendVXLAN, VNI: cni.WindowsMinVNI, Port: cni.WindowsVXLANPort}
}

// flannelRuns reports whether flanneld starts on the node and creates its
// HNS network; when it does not, the node's pods have no network to other
// nodes (NET-2, TS-1, TS-8).
func (b *builder) flannelRuns(bk cni.Backend, out *Node) bool {
	ok := true
	if b.confBroken {
		out.findingCase("TS-1", "flanneld", "flanneld on %s cannot read net-conf.json (see the cluster findings): it creates no HNS network, so pods there have no network to other nodes", out.Name)
		ok = false
	}
	for _, err := range (cni.NetConf{Backend: bk}).WindowsErrors() {
		out.finding("NET-2", "flanneld on %s refuses the configuration and exits: %v; the node gets no HNS network, so its pods have no network to other nodes", out.Name, err)
		ok = false
	}
	if !out.PodCIDR.IsValid() {
		out.finding("TS-8", "node %s has no pod CIDR: flanneld gets no subnet lease, writes no subnet.env and creates no HNS network", out.Name)
		ok = false
	}
	if !out.InternalIP.IsValid() {
		out.findingCase("TS-1", "flanneld", "node %s has no InternalIP: flanneld has no interface to bind", out.Name)
		ok = false
	}
	return ok
}

// chooseNetwork is the HNS network's name: net-conf.json's Backend.Name,
// else flanneld's default (flannel.<VNI> or cbr0). The seed's setup
// script wrote the Windows node's own net-conf.json with the name vxlan0,
// which the cluster ConfigMap does not show; a kube-proxy that asks for
// vxlan0 on a VXLAN network is taken as that setup.
func chooseNetwork(bk cni.Backend, wanted string) string {
	name := bk.NetworkName()
	if bk.Name == "" && bk.Type == cni.BackendVXLAN && strings.EqualFold(wanted, "vxlan0") {
		return wanted
	}
	return name
}

// proxyNetworkName is the network name the node's kube-proxy asks for.
func proxyNetworkName(daemons []proxyDaemon, cms []*corev1.ConfigMap, n *corev1.Node) string {
	d, ok := proxyFor(daemons, n)
	if !ok {
		return ""
	}
	f, _ := applyConfigFile(readFlags(d.c, n), d, cms)
	if v := value(f, "network-name"); v != "" {
		return v
	}
	return envValue(f, "KUBE_NETWORK")
}

// flannelFiles: subnet.env, the CNI config and the node annotations.
func (b *builder) flannelFiles(n *corev1.Node, out *Node, bk cni.Backend, network string) {
	out.SubnetEnv = cni.NewSubnetEnv(b.cluster.ClusterCIDR, out.PodCIDR, bk.Type, "windows").String()
	out.CNIConfig = cni.WindowsConfig(b.cniOptions(out, bk, network))
	out.FlannelAnnotations = cni.FlannelAnnotations(bk.Type, bk.EffectiveVNI("windows"), out.InternalIP.String(), vtepMAC(n))
}

func (b *builder) cniOptions(out *Node, bk cni.Backend, network string) cni.ConfigOptions {
	return cni.ConfigOptions{
		Mode: out.Mode, NetworkName: network,
		ClusterCIDR: b.cluster.ClusterCIDR, ServiceCIDR: b.cluster.ServiceCIDR,
		ManagementIP: out.InternalIP, ManagementSubnet: managementSubnet(out),
		MACPrefix: bk.EffectiveMACPrefix(),
	}
}

// knownIssues: KP-7's l2bridge issue is the node's, not a Service's.
func (b *builder) knownIssues(out *Node) {
	if out.Build.Build == windows.Build2022 && out.Mode == cni.ModeL2Bridge && out.Proxy.Running && out.Proxy.EnableDSR {
		msg := fmt.Sprintf("known issue: on Windows Server 2022 with KB5005619 or later, l2bridge pod-to-pod traffic breaks while kube-proxy runs with DSR (WinDSR); disable DSR on %s", out.Name)
		out.add(rules.New("KP-7", "l2bridge", msg).WithFix(l2bridgeDSRFix(out.Name)))
	}
}

// l2bridgeDSRFix gets around KP-7's l2bridge issue without running into
// LIM-12: Local needs DSR, so turning DSR off moves Local Services to
// Cluster.
func l2bridgeDSRFix(node string) string {
	return fmt.Sprintf("remove --enable-dsr from kube-proxy on %s, and give Services whose backends run there externalTrafficPolicy: Cluster, since Local needs DSR (LIM-12)", node)
}

// vtepMAC is the VTEP MAC a node's flanneld publishes (on Windows the
// overlay network's DR MAC, which HNS assigns): the one its backend-data
// annotation already holds, else one derived from its name. HNS form
// (upper case, dashes).
func vtepMAC(n *corev1.Node) string {
	if d, err := cni.ParseBackendData(n.Annotations[cni.AnnotationBackendData]); err == nil {
		if hw, err := net.ParseMAC(d.VtepMAC); err == nil && len(hw) == 6 {
			return strings.ToUpper(strings.ReplaceAll(hw.String(), ":", "-"))
		}
	}
	return DefaultVtepMAC(n.Name, nodeOS(n))
}

// DefaultVtepMAC is the VTEP MAC flanneld publishes for a node that has not
// published one yet, stable per node name: on Windows the HNS network's
// distributed-router MAC (Hyper-V's 00-15-5D prefix), on Linux a locally
// administered MAC like flannel.1's. The node agent writes the same value.
func DefaultVtepMAC(name, os string) string {
	if os == "windows" {
		return hns.HyperVMAC(name + "/dr")
	}
	m := []byte(hns.HyperVMAC(name + "/vtep"))
	copy(m, "0A-58-") // locally administered, as a Linux flannel.1's random MAC
	return string(m)
}

// hostMAC is the MAC of the node's own interface.
func hostMAC(node string) string { return hns.HyperVMAC(node + "/host") }
