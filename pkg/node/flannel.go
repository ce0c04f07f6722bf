package node

import (
	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/network"
	"github.com/winkube/winkube/pkg/network/cni"
)

// flannelAnnotations are what flanneld writes on its node once it holds
// the node's subnet: the backend of the cluster's network mode (vxlan for
// overlay, host-gw for l2bridge, NET-1), VNI 4096 (NET-2), the node IP
// as public IP, and the VTEP MAC the network model expects for the node.
func (n *emuNode) flannelAnnotations() map[string]string {
	backend := cni.BackendVXLAN
	if n.agent.cluster.Network.Mode == v1alpha1.ModeL2Bridge {
		backend = cni.BackendHostGW
	}
	return cni.FlannelAnnotations(backend, cni.WindowsMinVNI, n.spec.ip, network.DefaultVtepMAC(n.spec.name, n.spec.host.OS()))
}

// reserveHostAddresses keeps a Windows node's gateway and host endpoint
// (or source VIP) out of pod IPAM, as flanneld and the kube-proxy start
// script hold them before the first pod (NET-3, KP-2).
func (n *emuNode) reserveHostAddresses(m *ipam) {
	if n.spec.host.OS() != v1alpha1.OSWindows {
		return
	}
	for _, a := range cni.ReservedAddresses(n.agent.cluster.Network.Mode, m.prefix) {
		_ = m.Reserve("host:"+a.String(), a)
	}
}
