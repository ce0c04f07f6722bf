package cni

import "net/netip"

// Windows network modes (NET-1).
const (
	ModeOverlay  = "overlay"
	ModeL2Bridge = "l2bridge"
)

// Gateway is the HNS subnet's gateway address: the pod subnet's .1, on
// both networks flanneld creates (NET-3).
func Gateway(podCIDR netip.Prefix) netip.Addr {
	return podCIDR.Masked().Addr().Next()
}

// Broadcast is the pod subnet's last address, which host-local never
// hands out and ip shows as eth0's brd.
func Broadcast(podCIDR netip.Prefix) netip.Addr {
	a := podCIDR.Addr().As4()
	host := uint32(1)<<(32-podCIDR.Bits()) - 1
	v := (uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])) | host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// HostAddress is the node's own address in its pod subnet, .2: on
// l2bridge the cbr0_ep host endpoint flanneld creates, which win-bridge
// gives pods as their gateway (NET-3, NET-4); on overlay the source VIP
// the kube-proxy start script reserves with host-local (KP-2).
func HostAddress(podCIDR netip.Prefix) netip.Addr {
	return Gateway(podCIDR).Next()
}

// PodGateway is the gateway a pod's endpoint gets: the subnet gateway on
// overlay (win-overlay uses the HNS subnet's), the host endpoint on
// l2bridge (win-bridge uses base + 2).
func PodGateway(mode string, podCIDR netip.Prefix) netip.Addr {
	if mode == ModeL2Bridge {
		return HostAddress(podCIDR)
	}
	return Gateway(podCIDR)
}

// ReservedAddresses are the addresses of a Windows node's pod subnet that
// its IPAM must never give to a pod: the gateway and the host endpoint or
// source VIP, .1 and .2 in both modes.
func ReservedAddresses(mode string, podCIDR netip.Prefix) []netip.Addr {
	if !podCIDR.IsValid() || podCIDR.Bits() > podCIDR.Addr().BitLen()-2 {
		return nil
	}
	return []netip.Addr{Gateway(podCIDR), HostAddress(podCIDR)}
}
