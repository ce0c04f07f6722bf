package agnhost

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/vnet"
)

type direct struct{}

func (direct) Route(_ vnet.Host, _ string, dst netip.AddrPort) (netip.AddrPort, error) {
	return dst, nil
}

func (direct) Lookup(context.Context, vnet.Host, string) ([]netip.Addr, error) { return nil, nil }

// netexec answers its UDP commands on --udp-port as upstream's does:
// hostname, echo and clientip, one datagram each, over the pod network
// (the UDP pod-networking and Service conformance tests send these).
func TestNetexecUDP(t *testing.T) {
	f := vnet.New(direct{})
	server := &vnet.Host{IP: netip.MustParseAddr("10.244.1.7"), Scope: "pod", Source: "pod/ns/netexec"}
	e := newEnv(nil, "/agnhost", "netexec", "--http-port=8080", "--udp-port=8081")
	e.p.Sys.Net = f.Net(server)
	stop := e.start()
	defer stop()
	client := vnet.Host{IP: netip.MustParseAddr("10.244.2.3"), Scope: "pod", Source: "pod/ns/client"}
	var c net.Conn
	var err error
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if c, err = f.Dial(context.Background(), client, "udp", "10.244.1.7:8081"); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ask := func(cmd string) string {
		t.Helper()
		if _, err := c.Write([]byte(cmd)); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 2048)
		k, err := c.Read(buf)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		return string(buf[:k])
	}
	if got := ask("hostname\n"); got != "pod-1" {
		t.Errorf("hostname: %q", got)
	}
	if got := ask("echo Hello There"); got != "hello there" {
		t.Errorf("echo: %q (the command is lower-cased, as upstream's)", got)
	}
	if got := ask("clientip"); !strings.HasPrefix(got, "10.244.2.3:") {
		t.Errorf("clientip: %q", got)
	}
	if !strings.Contains(e.stderr.String()+e.stdout.String(), "Started UDP server on port  8081") {
		t.Errorf("log: %q", e.stderr.String())
	}
}
