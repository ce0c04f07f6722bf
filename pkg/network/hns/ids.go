package hns

import (
	"crypto/sha256"
	"fmt"
	"net/netip"
	"strings"
)

// ID is a GUID-shaped identifier derived from the identity of an object
// (its node, kind and key). Real HNS picks random GUIDs; the model derives
// them so the same cluster always yields the same IDs and diffs stay quiet.
func ID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	const digits = "0123456789ABCDEF"
	var b [36]byte
	j := 0
	for i := 0; i < 16; i++ {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = digits[h[i]>>4], digits[h[i]&0xF]
		j += 2
	}
	return string(b[:])
}

// DefaultMACPrefix is the endpointMacPrefix win-overlay and flannel use
// when none is configured (NET-5).
const DefaultMACPrefix = "0E-2A"

// RemoteMACPrefix is the prefix kube-proxy conjures remote endpoint MACs
// with (KP-4).
const RemoteMACPrefix = "02-11"

// IPMAC is prefix ("xx-xx") followed by the four IPv4 octets in hex, the
// way win-overlay names pod endpoints (NET-5) and kube-proxy names remote
// endpoints (KP-4). The plugins format lower-case hex, HNS lists MACs in
// upper case, as here. An IPv6 address uses its last four bytes reversed,
// as kube-proxy does.
func IPMAC(prefix string, ip netip.Addr) string {
	var b [4]byte
	switch {
	case ip.Is4():
		b = ip.As4()
	case ip.Is6():
		a := ip.As16()
		b = [4]byte{a[15], a[14], a[13], a[12]}
	default:
		return strings.ToUpper(prefix) + "-22-33-44-55"
	}
	return fmt.Sprintf("%s-%02X-%02X-%02X-%02X", strings.ToUpper(prefix), b[0], b[1], b[2], b[3])
}

// HyperVMAC is a MAC in the Hyper-V range (00-15-5D) that HNS assigns to
// host vNICs and L2Bridge endpoints, derived from key so it is stable.
func HyperVMAC(key string) string {
	h := sha256.Sum256([]byte(key))
	return fmt.Sprintf("00-15-5D-%02X-%02X-%02X", h[0], h[1], h[2])
}
