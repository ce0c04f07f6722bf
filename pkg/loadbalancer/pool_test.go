package loadbalancer

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func mustPool(t *testing.T, cidr string) *pool {
	t.Helper()
	p, err := newPool(netip.MustParsePrefix(cidr))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The pool never hands out its network or broadcast address and gives the
// lowest free address first.
func TestPoolSkipsNetworkAndBroadcast(t *testing.T) {
	p := mustPool(t, "10.127.131.0/30")
	var got []string
	for _, key := range []string{"a/one", "a/two"} {
		a, err := p.next(key)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, a.String())
	}
	if strings.Join(got, ",") != "10.127.131.1,10.127.131.2" {
		t.Errorf("addresses = %v, want 10.127.131.1 and 10.127.131.2", got)
	}
	_, err := p.next("a/three")
	if !errors.Is(err, errExhausted) || !strings.Contains(err.Error(), "all 2 addresses are in use") {
		t.Errorf("third address: err = %v, want the pool exhausted", err)
	}
	for _, a := range []string{"10.127.131.0", "10.127.131.3", "10.127.132.1"} {
		if p.usable(netip.MustParseAddr(a)) {
			t.Errorf("%s is usable", a)
		}
	}
}

func TestPoolReleaseAndReuse(t *testing.T) {
	p := mustPool(t, "10.127.131.0/24")
	first, _ := p.next("ns/a")
	p.next("ns/b")
	if !p.release("ns/a") || p.release("ns/a") {
		t.Error("release reports the wrong result")
	}
	again, _ := p.next("ns/c")
	if again != first {
		t.Errorf("freed %s, next gave %s", first, again)
	}
}

func TestPoolClaim(t *testing.T) {
	p := mustPool(t, "10.127.131.0/24")
	want := netip.MustParseAddr("10.127.131.50")
	if err := p.claim("ns/a", want); err != nil {
		t.Fatal(err)
	}
	if err := p.claim("ns/b", want); err == nil || !strings.Contains(err.Error(), "in use by Service ns/a") {
		t.Errorf("claiming a taken address: %v", err)
	}
	if err := p.claim("ns/b", netip.MustParseAddr("10.127.131.255")); err == nil {
		t.Error("claimed the broadcast address")
	}
	// Claiming another address moves the key and frees the old one.
	if err := p.claim("ns/a", netip.MustParseAddr("10.127.131.51")); err != nil {
		t.Fatal(err)
	}
	if _, held := p.holder(want); held {
		t.Errorf("%s still held after the key moved", want)
	}
}

func TestNewPoolRejects(t *testing.T) {
	for _, cidr := range []string{"10.0.0.0/31", "10.0.0.1/32", "fd00::/64"} {
		if _, err := newPool(netip.MustParsePrefix(cidr)); err == nil || !strings.Contains(err.Error(), "network.loadBalancerCIDR") {
			t.Errorf("newPool(%s) = %v, want an error naming network.loadBalancerCIDR", cidr, err)
		}
	}
	if _, err := newPool(netip.Prefix{}); err == nil {
		t.Error("newPool accepted the zero prefix")
	}
}
