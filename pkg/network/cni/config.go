package cni

import (
	"encoding/json"
	"net/netip"
)

// ConfigOptions describe one Windows node's CNI network.
type ConfigOptions struct {
	Mode        string // ModeOverlay or ModeL2Bridge
	NetworkName string // the HNS network name, which the config's name must match
	ClusterCIDR netip.Prefix
	ServiceCIDR netip.Prefix
	// ManagementIP is the node's address; on l2bridge its subnet is
	// excepted from NAT and the address routed through the host.
	ManagementIP     netip.Addr
	ManagementSubnet netip.Prefix
	MACPrefix        string // win-overlay endpointMacPrefix (NET-5)
}

// ExceptionList is the OutBoundNAT ExceptionList a Windows node needs
// (NET-6): the cluster CIDR and the service CIDR, and on l2bridge the
// management subnet; everything else leaves NATed to the node's address.
func ExceptionList(o ConfigOptions) []string {
	var out []string
	for _, p := range []netip.Prefix{o.ClusterCIDR, o.ServiceCIDR} {
		if p.IsValid() {
			out = append(out, p.String())
		}
	}
	if o.Mode == ModeL2Bridge && o.ManagementSubnet.IsValid() {
		out = append(out, o.ManagementSubnet.String())
	}
	return out
}

// policy is one entry of a delegate's "policies" list.
type policy struct {
	Name  string      `json:"Name"`
	Value policyValue `json:"Value"`
}

type policyValue struct {
	Type              string    `json:"Type"`
	ExceptionList     *[]string `json:"ExceptionList,omitempty"`
	DestinationPrefix string    `json:"DestinationPrefix,omitempty"`
	NeedEncap         bool      `json:"NeedEncap,omitempty"`
}

type delegate struct {
	Type              string   `json:"type"`
	EndpointMacPrefix string   `json:"endpointMacPrefix,omitempty"`
	Policies          []policy `json:"policies"`
}

type netConfig struct {
	Name         string          `json:"name"`
	CNIVersion   string          `json:"cniVersion"`
	Type         string          `json:"type"`
	Capabilities map[string]bool `json:"capabilities"`
	Delegate     delegate        `json:"delegate"`
}

// WindowsConfig is the node's CNI config (C:\etc\cni\net.d\10-flannel.conf)
// as the sig-windows-tools flannel setup writes it: the flannel plugin
// delegating to win-overlay (with the endpoint MAC prefix, NET-5) or
// win-bridge (NET-4), an OutBoundNAT policy with the NET-6 ExceptionList
// and a ROUTE through the host for the service CIDR (and on l2bridge for
// the node's own address). At run time the flannel plugin adds host-local
// IPAM over the node's subnet (NET-7).
func WindowsConfig(o ConfigOptions) string {
	exc := ExceptionList(o)
	pols := []policy{
		{Name: "EndpointPolicy", Value: policyValue{Type: "OutBoundNAT", ExceptionList: &exc}},
		{Name: "EndpointPolicy", Value: policyValue{Type: "ROUTE", DestinationPrefix: o.ServiceCIDR.String(), NeedEncap: true}},
	}
	d := delegate{Type: "win-overlay", Policies: pols}
	if o.Mode == ModeL2Bridge {
		d.Type = "win-bridge"
		host := netip.PrefixFrom(o.ManagementIP, 32).String()
		d.Policies = append(d.Policies, policy{Name: "EndpointPolicy", Value: policyValue{Type: "ROUTE", DestinationPrefix: host, NeedEncap: true}})
	} else {
		d.EndpointMacPrefix = o.MACPrefix
	}
	c := netConfig{
		Name: o.NetworkName, CNIVersion: "0.3.0", Type: "flannel",
		Capabilities: map[string]bool{"portMappings": true, "dns": true}, Delegate: d,
	}
	b, _ := json.MarshalIndent(c, "", "  ")
	return string(b)
}
