package hns

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText prints the state the way `hnsdiag list all` lays it out: one
// table each for networks, endpoints and load balancers.
func (s *State) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "Networks:\nNAME\tTYPE\tSUBNET\tGATEWAY\tMANAGEMENT IP\tSUBNET POLICIES")
	for _, n := range s.Networks {
		for _, sub := range n.Subnets {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", n.Name, n.Type, sub.AddressPrefix, sub.GatewayAddress, n.ManagementIP, policies(sub.Policies))
		}
	}
	for _, n := range s.Networks {
		for _, p := range n.Policies {
			fmt.Fprintf(tw, "  %s policy:\t%s\n", n.Name, policies([]Policy{p}))
		}
	}
	fmt.Fprintln(tw, "\nEndpoints:\nIP ADDRESS\tMAC ADDRESS\tREMOTE\tNETWORK\tFOR\tPOLICIES")
	for _, e := range s.Endpoints {
		fmt.Fprintf(tw, "%s\t%s\t%t\t%s\t%s\t%s\n", e.IPAddress, e.MacAddress, e.IsRemoteEndpoint, e.VirtualNetworkName, endpointOwner(e), policies(e.Policies))
	}
	fmt.Fprintln(tw, "\nLoad balancers:\nSERVICE\tKIND\tFRONTEND VIPS\tPROTOCOL\tEXTERNAL PORT\tINTERNAL PORT\tFLAGS\tBACKENDS")
	ips := s.endpointIPs()
	for _, lb := range s.LoadBalancers {
		var backends []string
		for _, id := range lb.Endpoints {
			backends = append(backends, ips[id])
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", serviceName(lb), lb.Kind, orDash(strings.Join(lb.FrontendVIPs, ",")),
			protocolName(lb.Protocol), lb.ExternalPort, lb.InternalPort, orDash(strings.Join(lb.Flags(), ",")), orDash(strings.Join(backends, ",")))
	}
	return tw.Flush()
}

func (s *State) endpointIPs() map[string]string {
	ips := make(map[string]string, len(s.Endpoints))
	for _, e := range s.Endpoints {
		ips[e.ID] = e.IPAddress
	}
	return ips
}

// Flags names the load balancer's flags as hnsdiag shows them.
func (lb *LoadBalancer) Flags() []string {
	var f []string
	for _, x := range []struct {
		on   bool
		name string
	}{{lb.ILB, "ILB"}, {lb.DSR, "DSR"}, {lb.IPv6, "IPv6"}, {lb.LocalRoutedVIP, "LocalRoutedVIP"}, {lb.PreserveDIP, "PreserveDIP"},
		{lb.Distribution == DistributionSourceIP, "SourceIP"}} {
		if x.on {
			f = append(f, x.name)
		}
	}
	return f
}

func policies(ps []Policy) string {
	var out []string
	for _, p := range ps {
		switch p.Type {
		case PolicyOutBoundNAT:
			out = append(out, "OutBoundNAT except "+strings.Join(p.ExceptionList, ","))
		case PolicyVSID:
			out = append(out, fmt.Sprintf("VSID %d", p.VSID))
		case PolicyRoute:
			r := "ROUTE " + p.DestinationPrefix
			if p.NeedEncap {
				r += " (encap)"
			}
			out = append(out, r)
		case PolicyPA:
			out = append(out, "PA "+p.PA)
		case PolicyRemoteSubnetRoute:
			out = append(out, fmt.Sprintf("RemoteSubnetRoute %s via %s", p.DestinationPrefix, p.ProviderAddress))
		default:
			out = append(out, p.Type)
		}
	}
	return orDash(strings.Join(out, "; "))
}

func endpointOwner(e Endpoint) string {
	switch {
	case e.Pod != "":
		return "pod " + e.Pod
	case e.Host:
		return "host"
	case e.Node != "":
		return "node " + e.Node
	}
	return "-"
}

func serviceName(lb LoadBalancer) string {
	if lb.Port != "" {
		return lb.Service + ":" + lb.Port
	}
	return lb.Service
}

func protocolName(p int) string {
	switch p {
	case ProtocolTCP:
		return "TCP"
	case ProtocolUDP:
		return "UDP"
	case ProtocolSCTP:
		return "SCTP"
	}
	return fmt.Sprint(p)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
