package hns

import (
	"strings"
	"testing"
)

// rule: NET-2, NET-5, KP-3, KP-4
// The text form shows what hnsdiag would: the network with its VSID, each
// endpoint with its MAC, and each load balancer with its flags and the
// addresses of its backends.
func TestWriteText(t *testing.T) {
	s := &State{
		Networks: []Network{{Name: "vxlan0", Type: TypeOverlay, ManagementIP: "10.127.130.11",
			Subnets:  []Subnet{{AddressPrefix: "10.244.1.0/24", GatewayAddress: "10.244.1.1", Policies: []Policy{{Type: PolicyVSID, VSID: 4096}}}},
			Policies: []Policy{{Type: PolicyRemoteSubnetRoute, DestinationPrefix: "10.244.2.0/24", ProviderAddress: "10.127.130.12"}}}},
		Endpoints: []Endpoint{
			{ID: "a", IPAddress: "10.244.1.3", MacAddress: "0E-2A-0A-F4-01-03", VirtualNetworkName: "vxlan0", Pod: "default/web"},
			{ID: "b", IPAddress: "10.244.2.3", MacAddress: "02-11-0A-F4-02-03", VirtualNetworkName: "vxlan0", IsRemoteEndpoint: true, Node: "win2019-2",
				Policies: []Policy{{Type: PolicyPA, PA: "10.127.130.12"}}},
		},
		LoadBalancers: []LoadBalancer{{Service: "default/web", Port: "http", Kind: KindClusterIP, FrontendVIPs: []string{"10.96.0.20"},
			Protocol: ProtocolTCP, ExternalPort: 80, InternalPort: 8080, DSR: true, Endpoints: []string{"a", "b"}}},
	}
	var b strings.Builder
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"vxlan0", "VSID 4096", "RemoteSubnetRoute 10.244.2.0/24 via 10.127.130.12",
		"0E-2A-0A-F4-01-03", "pod default/web", "02-11-0A-F4-02-03", "PA 10.127.130.12",
		"default/web:http", "10.96.0.20", "DSR", "10.244.1.3,10.244.2.3"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}
