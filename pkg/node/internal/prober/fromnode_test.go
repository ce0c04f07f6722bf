package prober

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"

	"github.com/winkube/winkube/pkg/emu/vnet"
)

// The kubelet dials from its node: localhost is the node's own loopback,
// where a host-network pod's server listens (a probe with host:
// localhost); the node's and pods' addresses are reached straight; any
// other name fails as the node's resolver does, which knows no cluster
// names.
func TestFromNode(t *testing.T) {
	fabric := vnet.New(nil)
	node := vnet.Host{IP: netip.MustParseAddr("10.0.0.4"), Scope: "node/n1"}
	l, err := fabric.Serve(node, "tcp", 10256, func(c net.Conn) { c.Close() })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dial := FromNode(fabric, "n1", "10.0.0.4")
	ctx := context.Background()
	for _, addr := range []string{"localhost:10256", "127.0.0.1:10256", "10.0.0.4:10256"} {
		c, err := dial(ctx, addr)
		if err != nil {
			t.Errorf("dial %s: %v", addr, err)
			continue
		}
		c.Close()
	}
	other := FromNode(fabric, "n2", "10.0.0.5")
	if c, err := other(ctx, "localhost:10256"); err == nil {
		c.Close()
		t.Error("another node's kubelet reached n1's loopback")
	}
	_, err = dial(ctx, "web.default.svc:80")
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || !dnsErr.IsNotFound || dnsErr.Name != "web.default.svc" {
		t.Errorf("dial by a cluster name: %v, want no such host", err)
	}
}
