package status

import (
	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/node/internal/kubeletapi"
	corev1 "k8s.io/api/core/v1"
)

// Addresses are node.status.addresses: the InternalIP apiservers dial
// (the real kubelet address when there is one) and the hostname.
func (s Spec) Addresses() []corev1.NodeAddress {
	ip := s.IP
	if s.Endpoint.IsValid() {
		ip = s.Endpoint.Addr().String()
	}
	return []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: ip},
		{Type: corev1.NodeHostName, Address: s.Name},
	}
}

// KubeletPort is status.daemonEndpoints.kubeletEndpoint.port.
func (s Spec) KubeletPort() int32 {
	if s.Endpoint.IsValid() {
		return int32(s.Endpoint.Port())
	}
	return kubeletapi.Port
}

// MarkNodeIP records the emulated address beside a real InternalIP.
func (s Spec) MarkNodeIP(n *corev1.Node) {
	if !s.Endpoint.IsValid() {
		return
	}
	if n.Annotations == nil {
		n.Annotations = map[string]string{}
	}
	n.Annotations[annotations.EmulatedNodeIP] = s.IP
}

// EmulatedAddress replaces the InternalIP of a node with a real kubelet
// address by its emulated one.
func EmulatedAddress(n *corev1.Node) {
	ip := n.Annotations[annotations.EmulatedNodeIP]
	if ip == "" {
		return
	}
	for i := range n.Status.Addresses {
		if n.Status.Addresses[i].Type == corev1.NodeInternalIP {
			n.Status.Addresses[i].Address = ip
			return
		}
	}
}
