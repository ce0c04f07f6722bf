package cni

import (
	"bufio"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// MTUs flanneld writes for a 1500-byte interface: VXLAN takes 50 bytes
// of encapsulation on Linux and Windows alike; host-gw takes none.
const (
	InterfaceMTU  = 1500
	vxlanOverhead = 50
)

// SubnetEnv is /run/flannel/subnet.env (NET-8).
type SubnetEnv struct {
	Network netip.Prefix // FLANNEL_NETWORK
	// Subnet is the node's pod subnet; the file holds its first address
	// with the prefix length (FLANNEL_SUBNET=10.244.4.1/24).
	Subnet netip.Prefix
	MTU    int  // FLANNEL_MTU
	IPMasq bool // FLANNEL_IPMASQ
}

// NewSubnetEnv is what flanneld writes for a node with podCIDR. IPMasq
// follows flanneld's --ip-masq flag: kube-flannel.yml passes it on Linux,
// the Windows flanneld setup does not.
func NewSubnetEnv(network, podCIDR netip.Prefix, backend, os string) SubnetEnv {
	mtu := InterfaceMTU
	if backend == BackendVXLAN {
		mtu -= vxlanOverhead
	}
	return SubnetEnv{Network: network, Subnet: podCIDR.Masked(), MTU: mtu, IPMasq: os != "windows"}
}

// String is the file's content.
func (e SubnetEnv) String() string {
	first := netip.PrefixFrom(e.Subnet.Masked().Addr().Next(), e.Subnet.Bits())
	return fmt.Sprintf("FLANNEL_NETWORK=%s\nFLANNEL_SUBNET=%s\nFLANNEL_MTU=%d\nFLANNEL_IPMASQ=%t\n",
		e.Network, first, e.MTU, e.IPMasq)
}

// ParseSubnetEnv reads a subnet.env file; every NET-8 line must be there.
func ParseSubnetEnv(data string) (SubnetEnv, error) {
	vals := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok {
			vals[k] = v
		}
	}
	var e SubnetEnv
	var err error
	if e.Network, err = netip.ParsePrefix(vals["FLANNEL_NETWORK"]); err != nil {
		return e, fmt.Errorf("subnet.env FLANNEL_NETWORK %q: want a CIDR", vals["FLANNEL_NETWORK"])
	}
	if e.Subnet, err = netip.ParsePrefix(vals["FLANNEL_SUBNET"]); err != nil {
		return e, fmt.Errorf("subnet.env FLANNEL_SUBNET %q: want the subnet's first address and prefix, e.g. 10.244.4.1/24", vals["FLANNEL_SUBNET"])
	}
	e.Subnet = e.Subnet.Masked()
	if e.MTU, err = strconv.Atoi(vals["FLANNEL_MTU"]); err != nil || e.MTU <= 0 {
		return e, fmt.Errorf("subnet.env FLANNEL_MTU %q: want a positive number", vals["FLANNEL_MTU"])
	}
	if e.IPMasq, err = strconv.ParseBool(vals["FLANNEL_IPMASQ"]); err != nil {
		return e, fmt.Errorf("subnet.env FLANNEL_IPMASQ %q: want true or false", vals["FLANNEL_IPMASQ"])
	}
	return e, nil
}
