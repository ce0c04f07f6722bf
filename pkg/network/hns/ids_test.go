package hns

import (
	"net/netip"
	"regexp"
	"testing"
)

// rule: NET-5 — win-overlay's endpoint MAC is the prefix plus the IPv4
// octets in hex; rule: KP-4 — kube-proxy's remote endpoints use 02-11.
func TestIPMAC(t *testing.T) {
	ip := netip.MustParseAddr("10.244.1.5")
	if got := IPMAC(DefaultMACPrefix, ip); got != "0E-2A-0A-F4-01-05" {
		t.Errorf("pod MAC %s, want 0E-2A-0A-F4-01-05", got)
	}
	if got := IPMAC(RemoteMACPrefix, ip); got != "02-11-0A-F4-01-05" {
		t.Errorf("remote MAC %s, want 02-11-0A-F4-01-05", got)
	}
}

func TestIDIsStableAndGUIDShaped(t *testing.T) {
	a, b := ID("win2019-1", "network", "vxlan0"), ID("win2019-1", "network", "vxlan0")
	if a != b {
		t.Errorf("same identity, different IDs: %s %s", a, b)
	}
	if ID("win2019-1", "network", "cbr0") == a {
		t.Error("different identities share an ID")
	}
	if !regexp.MustCompile(`^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$`).MatchString(a) {
		t.Errorf("ID %s is not GUID-shaped", a)
	}
}
