package prober

import (
	"context"
	"net"
	"net/netip"
	"strings"

	"github.com/winkube/winkube/pkg/emu/vnet"
)

// nodeHost is the node's own place on the pod network (the kubelet's).
func nodeHost(name, nodeIP string) vnet.Host {
	ip, _ := netip.ParseAddr(nodeIP)
	return vnet.Host{IP: ip, Scope: "node/" + name, Source: "node/" + name}
}

// FromNode is the Dial of the kubelet of node name at nodeIP: it
// connects the kubelet to addr: a pod's or a node's address,
// or a name, which the node resolves with its own (not the cluster's)
// resolver: its hosts file's localhost, else only an IP. The node's
// loopback is its own network namespace's, where a host-network pod's
// servers listen (a probe with host: localhost).
func FromNode(fabric *vnet.Fabric, name, nodeIP string) func(ctx context.Context, addr string) (net.Conn, error) {
	return func(ctx context.Context, addr string) (net.Conn, error) {
		return dialFromNode(ctx, fabric, nodeHost(name, nodeIP), addr)
	}
}

func dialFromNode(ctx context.Context, fabric *vnet.Fabric, node vnet.Host, addr string) (net.Conn, error) {
	host, port, _ := net.SplitHostPort(addr)
	if strings.EqualFold(host, "localhost") {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
	}
	if ap.Addr().IsLoopback() {
		return fabric.Dial(ctx, node, "tcp", addr)
	}
	return fabric.DialFrom(ctx, node, ap)
}
