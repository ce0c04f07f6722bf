package netcmd

import (
	"context"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

// The pod's one adapter as the NetTCPIP and DnsClient modules show it,
// from the pod's network (the same facts ipconfig prints).

func init() {
	engine.Register("Get-NetAdapter", "", getNetAdapter, engine.P("Name", 0))
	engine.Register("Get-NetIPAddress", "", getNetIPAddress, engine.P("IPAddress", 0), engine.N("AddressFamily"), engine.N("InterfaceAlias"))
	engine.Register("Get-NetIPConfiguration", "gip", getNetIPConfiguration, engine.P("InterfaceAlias", 0))
	engine.Register("Get-DnsClientServerAddress", "", getDNSServerAddress, engine.P("InterfaceAlias", 0), engine.N("AddressFamily"))
}

const (
	adapterAlias  = "vEthernet (Ethernet)"
	adapterIndex  = 7
	adapterMAC    = "00-15-5D-00-00-01"
	loopbackAlias = "Loopback Pseudo-Interface 1"
	loopbackIndex = 1
)

func getNetAdapter(_ context.Context, c *engine.Call) error {
	c.Emit(values.NewObject("Microsoft.Management.Infrastructure.CimInstance#ROOT/StandardCimv2/MSFT_NetAdapter",
		"Name", adapterAlias, "InterfaceDescription", "Hyper-V Virtual Ethernet Container Adapter", "ifIndex", adapterIndex,
		"Status", "Up", "MacAddress", adapterMAC, "LinkSpeed", "10 Gbps"))
	return nil
}

// getNetIPAddress lists the addresses as Windows orders them: the
// adapter's IPv6 link-local address, then its IPv4 address (scripts index
// the list: the seed's web server reads $ip[1].IPAddress of
// Get-NetAdapter | Get-NetIPAddress), then, unless the adapters were piped
// in, the loopback pseudo-interface's.
func getNetIPAddress(_ context.Context, c *engine.Call) error {
	const cim = "Microsoft.Management.Infrastructure.CimInstance#ROOT/StandardCimv2/MSFT_NetIPAddress"
	type addr struct{ ip, family, alias, prefixOrigin string }
	list := []addr{
		{linkLocal(adapterMAC) + "%" + strconv.Itoa(adapterIndex), "IPv6", adapterAlias, "WellKnown"},
		{winutil.PodIP(c.I.Sys), "IPv4", adapterAlias, "Manual"},
	}
	if !c.Piped {
		list = append(list, addr{"::1", "IPv6", loopbackAlias, "WellKnown"}, addr{"127.0.0.1", "IPv4", loopbackAlias, "WellKnown"})
	}
	family, alias := c.Str("AddressFamily"), c.Str("InterfaceAlias")
	for _, a := range list {
		if (family != "" && !strings.EqualFold(family, a.family)) || (alias != "" && !strings.EqualFold(alias, a.alias)) {
			continue
		}
		index := adapterIndex
		if a.alias == loopbackAlias {
			index = loopbackIndex
		}
		c.Emit(values.NewObject(cim, "IPAddress", a.ip, "InterfaceIndex", index, "InterfaceAlias", a.alias,
			"AddressFamily", a.family, "Type", "Unicast", "PrefixOrigin", a.prefixOrigin, "SuffixOrigin", a.prefixOrigin,
			"AddressState", "Preferred"))
	}
	return nil
}

// linkLocal is the fe80::/64 address of a MAC in its modified EUI-64 form.
func linkLocal(mac string) string {
	hw, err := net.ParseMAC(mac)
	if err != nil || len(hw) != 6 {
		return "fe80::1"
	}
	b := [16]byte{0: 0xfe, 1: 0x80}
	copy(b[8:], []byte{hw[0] ^ 0x02, hw[1], hw[2], 0xff, 0xfe, hw[3], hw[4], hw[5]})
	return netip.AddrFrom16(b).String()
}

func getNetIPConfiguration(_ context.Context, c *engine.Call) error {
	servers, _ := winutil.DNS(c.I.Sys)
	c.Emit(values.NewObject("NetIPConfiguration", "InterfaceAlias", adapterAlias, "InterfaceIndex", adapterIndex,
		"InterfaceDescription", "Hyper-V Virtual Ethernet Container Adapter", "IPv4Address", winutil.PodIP(c.I.Sys),
		"DNSServer", anyList(servers)))
	return nil
}

func getDNSServerAddress(_ context.Context, c *engine.Call) error {
	servers, _ := winutil.DNS(c.I.Sys)
	c.Emit(values.NewObject("Microsoft.Management.Infrastructure.CimInstance#ROOT/StandardCimv2/MSFT_DNSClientServerAddress",
		"InterfaceAlias", adapterAlias, "InterfaceIndex", adapterIndex, "AddressFamily", 2, "ServerAddresses", anyList(servers)))
	return nil
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
