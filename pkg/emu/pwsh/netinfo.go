package pwsh

import (
	"context"

	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

// The pod's one adapter as the NetTCPIP and DnsClient modules show it,
// from the pod's network (the same facts ipconfig prints).

func init() {
	register("Get-NetAdapter", "", getNetAdapter, p("Name", 0))
	register("Get-NetIPAddress", "", getNetIPAddress, p("IPAddress", 0), n("AddressFamily"), n("InterfaceAlias"))
	register("Get-NetIPConfiguration", "gip", getNetIPConfiguration, p("InterfaceAlias", 0))
	register("Get-DnsClientServerAddress", "", getDNSServerAddress, p("InterfaceAlias", 0), n("AddressFamily"))
}

const (
	adapterAlias = "vEthernet (Ethernet)"
	adapterIndex = 7
)

func getNetAdapter(_ context.Context, c *call) error {
	c.emit(newObject("Microsoft.Management.Infrastructure.CimInstance#ROOT/StandardCimv2/MSFT_NetAdapter",
		"Name", adapterAlias, "InterfaceDescription", "Hyper-V Virtual Ethernet Container Adapter", "ifIndex", adapterIndex,
		"Status", "Up", "MacAddress", "00-15-5D-00-00-01", "LinkSpeed", "10 Gbps"))
	return nil
}

func getNetIPAddress(_ context.Context, c *call) error {
	c.emit(newObject("Microsoft.Management.Infrastructure.CimInstance#ROOT/StandardCimv2/MSFT_NetIPAddress",
		"IPAddress", winutil.PodIP(c.i.sys), "InterfaceIndex", adapterIndex, "InterfaceAlias", adapterAlias,
		"AddressFamily", "IPv4", "Type", "Unicast", "PrefixOrigin", "Manual", "SuffixOrigin", "Manual",
		"AddressState", "Preferred"))
	return nil
}

func getNetIPConfiguration(_ context.Context, c *call) error {
	servers, _ := winutil.DNS(c.i.sys)
	c.emit(newObject("NetIPConfiguration", "InterfaceAlias", adapterAlias, "InterfaceIndex", adapterIndex,
		"InterfaceDescription", "Hyper-V Virtual Ethernet Container Adapter", "IPv4Address", winutil.PodIP(c.i.sys),
		"DNSServer", anyList(servers)))
	return nil
}

func getDNSServerAddress(_ context.Context, c *call) error {
	servers, _ := winutil.DNS(c.i.sys)
	c.emit(newObject("Microsoft.Management.Infrastructure.CimInstance#ROOT/StandardCimv2/MSFT_DNSClientServerAddress",
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
