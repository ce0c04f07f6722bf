package cni

import (
	"encoding/json"
	"net/netip"
	"reflect"
	"strings"
	"testing"
)

const seedNetConf = `{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan", "VNI": 4096, "Port": 4789}}`

// rule: NET-2 — the seed's net-conf.json works on Windows and Linux alike.
func TestSeedNetConfAcceptedOnWindows(t *testing.T) {
	c, err := ParseNetConf(seedNetConf)
	if err != nil {
		t.Fatal(err)
	}
	if c.Network != netip.MustParsePrefix("10.244.0.0/16") || c.Backend.Type != "vxlan" {
		t.Errorf("parsed %+v", c)
	}
	if errs := c.WindowsErrors(); len(errs) != 0 {
		t.Errorf("WindowsErrors = %v, want none", errs)
	}
	for _, os := range []string{"linux", "windows"} {
		if v, p := c.Backend.EffectiveVNI(os), c.Backend.EffectivePort(os); v != 4096 || p != 4789 {
			t.Errorf("%s: VNI %d port %d, want 4096 4789", os, v, p)
		}
	}
}

// rule: NET-2 — Windows flanneld refuses VNI < 4096, ports other than
// 4789, DirectRouting and GBP; Linux defaults are VNI 1 and port 8472.
func TestWindowsRefusesOtherVXLANSettings(t *testing.T) {
	for _, tc := range []struct {
		conf string
		want string
	}{
		{`{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan", "VNI": 1, "Port": 4789}}`, "Backend.VNI 1"},
		{`{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan", "VNI": 4096, "Port": 8472}}`, "Backend.Port 8472"},
		{`{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan", "VNI": 4096, "DirectRouting": true}}`, "DirectRouting"},
		{`{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan", "GBP": true}}`, "GBP"},
		{`{"Network": "10.244.0.0/16", "Backend": {"Type": "wireguard"}}`, "only vxlan and host-gw"},
		{`{"Network": "10.244.0.0/16"}`, `"udp"`},
	} {
		c, err := ParseNetConf(tc.conf)
		if err != nil {
			t.Fatal(err)
		}
		errs := c.WindowsErrors()
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
			t.Errorf("%s: errors %v, want one naming %s", tc.conf, errs, tc.want)
		}
	}
	c, _ := ParseNetConf(`{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan"}}`)
	if v, p := c.Backend.EffectiveVNI("linux"), c.Backend.EffectivePort("linux"); v != 1 || p != 8472 {
		t.Errorf("Linux defaults VNI %d port %d, want 1 8472", v, p)
	}
	if len(c.WindowsErrors()) != 0 {
		t.Errorf("unset VNI/port: Windows uses its own defaults 4096/4789, want no errors")
	}
}

// rule: NET-2 — the HNS network's name: Backend.Name, else flannel.<VNI>
// for vxlan, cbr0 for host-gw (NET-3).
func TestNetworkName(t *testing.T) {
	for conf, want := range map[string]string{
		seedNetConf: "flannel.4096",
		`{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan", "Name": "vxlan0"}}`: "vxlan0",
		`{"Network": "10.244.0.0/16", "Backend": {"Type": "host-gw"}}`:                 "cbr0",
	} {
		c, err := ParseNetConf(conf)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Backend.NetworkName(); got != want {
			t.Errorf("%s: name %q, want %q", conf, got, want)
		}
	}
}

func TestParseNetConfErrorsNameTheField(t *testing.T) {
	for conf, want := range map[string]string{
		`{`:                              "net-conf.json",
		`{"Backend": {"Type": "vxlan"}}`: "Network is missing",
		`{"Network": "10.244.0.1/16"}`:   `Network "10.244.0.1/16"`,
		`{"Network": "10.244.0.0/16", "Backend": "vxlan"}`: "Backend",
	} {
		if _, err := ParseNetConf(conf); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", conf, err, want)
		}
	}
}

// rule: NET-8 — FLANNEL_SUBNET is the node subnet's first address with
// its prefix; MTU 1450 under VXLAN; Windows flanneld runs without
// --ip-masq.
func TestSubnetEnv(t *testing.T) {
	e := NewSubnetEnv(netip.MustParsePrefix("10.244.0.0/16"), netip.MustParsePrefix("10.244.4.0/24"), BackendVXLAN, "windows")
	want := "FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.4.1/24\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=false\n"
	if got := e.String(); got != want {
		t.Errorf("subnet.env:\n%s\nwant:\n%s", got, want)
	}
	back, err := ParseSubnetEnv(want)
	if err != nil || back != e {
		t.Errorf("ParseSubnetEnv = %+v, %v; want %+v", back, err, e)
	}
	linux := NewSubnetEnv(netip.MustParsePrefix("10.244.0.0/16"), netip.MustParsePrefix("10.244.0.0/24"), BackendHostGW, "linux")
	if linux.MTU != 1500 || !linux.IPMasq {
		t.Errorf("host-gw on Linux: %+v, want MTU 1500 and IPMasq", linux)
	}
	if _, err := ParseSubnetEnv("FLANNEL_NETWORK=10.244.0.0/16\n"); err == nil || !strings.Contains(err.Error(), "FLANNEL_SUBNET") {
		t.Errorf("missing FLANNEL_SUBNET: error %v", err)
	}
}

// rule: NET-6 — the ExceptionList holds the cluster and service CIDRs,
// and on l2bridge the management subnet.
func TestExceptionList(t *testing.T) {
	o := ConfigOptions{
		Mode: ModeOverlay, ClusterCIDR: netip.MustParsePrefix("10.244.0.0/16"), ServiceCIDR: netip.MustParsePrefix("10.96.0.0/12"),
		ManagementIP: netip.MustParseAddr("192.168.1.20"), ManagementSubnet: netip.MustParsePrefix("192.168.1.0/24"),
	}
	if got, want := ExceptionList(o), []string{"10.244.0.0/16", "10.96.0.0/12"}; !reflect.DeepEqual(got, want) {
		t.Errorf("overlay: %v, want %v", got, want)
	}
	o.Mode = ModeL2Bridge
	if got, want := ExceptionList(o), []string{"10.244.0.0/16", "10.96.0.0/12", "192.168.1.0/24"}; !reflect.DeepEqual(got, want) {
		t.Errorf("l2bridge: %v, want %v", got, want)
	}
}

// rule: NET-5, NET-4 — the CNI config delegates to win-overlay with the
// 0E-2A MAC prefix, or to win-bridge with a route to the node itself.
func TestWindowsConfig(t *testing.T) {
	o := ConfigOptions{
		Mode: ModeOverlay, NetworkName: "vxlan0", ClusterCIDR: netip.MustParsePrefix("10.244.0.0/16"),
		ServiceCIDR: netip.MustParsePrefix("10.96.0.0/12"), ManagementIP: netip.MustParseAddr("192.168.1.20"),
		ManagementSubnet: netip.MustParsePrefix("192.168.1.0/24"), MACPrefix: "0E-2A",
	}
	var c struct {
		Name     string
		Type     string
		Delegate struct {
			Type              string
			EndpointMacPrefix string
			Policies          []struct {
				Value struct {
					Type              string
					ExceptionList     []string
					DestinationPrefix string
					NeedEncap         bool
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(WindowsConfig(o)), &c); err != nil {
		t.Fatal(err)
	}
	d := c.Delegate
	if c.Name != "vxlan0" || c.Type != "flannel" || d.Type != "win-overlay" || d.EndpointMacPrefix != "0E-2A" || len(d.Policies) != 2 {
		t.Fatalf("overlay config: %+v", c)
	}
	if p := d.Policies[1].Value; p.Type != "ROUTE" || p.DestinationPrefix != "10.96.0.0/12" || !p.NeedEncap {
		t.Errorf("service route: %+v", p)
	}
	o.Mode, o.NetworkName = ModeL2Bridge, "cbr0"
	c.Delegate.Policies = nil
	if err := json.Unmarshal([]byte(WindowsConfig(o)), &c); err != nil {
		t.Fatal(err)
	}
	if c.Delegate.Type != "win-bridge" || len(c.Delegate.Policies) != 3 || c.Delegate.Policies[2].Value.DestinationPrefix != "192.168.1.20/32" {
		t.Errorf("l2bridge config: %+v", c)
	}
}

// The annotations flanneld writes: backend-data with VNI 4096 (NET-2) and
// the VTEP MAC for vxlan, null for host-gw.
func TestFlannelAnnotations(t *testing.T) {
	a := FlannelAnnotations("vxlan", 4096, "192.168.1.20", "00-15-5D-78-FB-EC")
	want := map[string]string{
		"flannel.alpha.coreos.com/backend-type":        "vxlan",
		"flannel.alpha.coreos.com/backend-data":        `{"VNI":4096,"VtepMAC":"00:15:5d:78:fb:ec"}`,
		"flannel.alpha.coreos.com/public-ip":           "192.168.1.20",
		"flannel.alpha.coreos.com/kube-subnet-manager": "true",
	}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("vxlan annotations:\n%v\nwant\n%v", a, want)
	}
	if d, err := ParseBackendData(a[AnnotationBackendData]); err != nil || d.VNI != 4096 {
		t.Errorf("ParseBackendData = %+v, %v", d, err)
	}
	if got := FlannelAnnotations("host-gw", 0, "192.168.1.20", "")[AnnotationBackendData]; got != "null" {
		t.Errorf("host-gw backend-data = %q, want null", got)
	}
}

// rule: NET-3 — gateway .1 and host endpoint .2 are never pod addresses.
func TestReservedAddresses(t *testing.T) {
	cidr := netip.MustParsePrefix("10.244.1.0/24")
	want := []netip.Addr{netip.MustParseAddr("10.244.1.1"), netip.MustParseAddr("10.244.1.2")}
	for _, mode := range []string{ModeOverlay, ModeL2Bridge} {
		if got := ReservedAddresses(mode, cidr); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", mode, got, want)
		}
	}
	if got := PodGateway(ModeL2Bridge, cidr); got.String() != "10.244.1.2" {
		t.Errorf("win-bridge pod gateway %s, want base + 2 (NET-4)", got)
	}
	if got := ReservedAddresses(ModeOverlay, netip.MustParsePrefix("10.244.1.0/31")); got != nil {
		t.Errorf("/31: %v, want nothing", got)
	}
}
