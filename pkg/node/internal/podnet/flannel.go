package podnet

import (
	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/network"
	"github.com/winkube/winkube/pkg/network/cni"
)

// FlannelAnnotations are what flanneld writes on its node once it holds
// the node's subnet: the backend of the cluster's network mode (vxlan for
// overlay, host-gw for l2bridge, NET-1), VNI 4096 (NET-2), the node IP
// as public IP, and the VTEP MAC the network model expects for the node.
func FlannelAnnotations(mode, node, ip, os string) map[string]string {
	backend := cni.BackendVXLAN
	if mode == v1alpha1.ModeL2Bridge {
		backend = cni.BackendHostGW
	}
	return cni.FlannelAnnotations(backend, cni.WindowsMinVNI, ip, network.DefaultVtepMAC(node, os))
}

// ReserveHostAddresses keeps a Windows node's gateway and host endpoint
// (or source VIP) out of pod IPAM, as flanneld and the kube-proxy start
// script hold them before the first pod (NET-3, KP-2).
func ReserveHostAddresses(m *IPAM, mode, os string) {
	if os != v1alpha1.OSWindows {
		return
	}
	for _, a := range cni.ReservedAddresses(mode, m.prefix) {
		_ = m.Reserve("host:"+a.String(), a)
	}
}
