package sysapplets

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/netapplets"
	"github.com/winkube/winkube/pkg/emu/program"
)

// The network applets talk only through Sys.Net (netapplets.Lookup,
// netapplets.ClockTimeout); with no Net they fail as on a pod with no
// reachable network.

// nameserver is the first nameserver of the container's resolv.conf.
func nameserver(p *program.Proc) string {
	data, err := kit.ReadAll(p, "/etc/resolv.conf")
	if err != nil {
		return "127.0.0.11"
	}
	for _, l := range strings.Split(data, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "nameserver" {
			return f[1]
		}
	}
	return "127.0.0.11"
}

// Nslookup is the nslookup applet.
func Nslookup(ctx context.Context, p *program.Proc) int {
	var args []string
	for _, a := range p.Args[1:] {
		if !strings.HasPrefix(a, "-") {
			args = append(args, a)
		}
	}
	if len(args) == 0 {
		fmt.Fprintln(p.Stderr, "Usage: nslookup [-type=QUERY_TYPE] [-debug] HOST [DNS_SERVER]")
		return 1
	}
	if p.Sys.Net == nil {
		fmt.Fprintln(p.Stdout, ";; connection timed out; no servers could be reached")
		return 1
	}
	server := nameserver(p)
	if len(args) > 1 {
		server = args[1]
	}
	fmt.Fprintf(p.Stdout, "Server:\t\t%s\nAddress:\t%s\n\n", server, net.JoinHostPort(server, "53"))
	addrs, err := netapplets.Lookup(ctx, p, args[0])
	if err != nil {
		fmt.Fprintf(p.Stdout, "** server can't find %s: NXDOMAIN\n\n", args[0])
		return 1
	}
	for _, a := range addrs {
		fmt.Fprintf(p.Stdout, "Name:\t%s\nAddress: %s\n", args[0], a)
	}
	fmt.Fprintln(p.Stdout)
	return 0
}

// Ping is the ping applet.
func Ping(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "c:W:w:qs:i:I:t:46")
	if !ok {
		return 1
	}
	if len(o.Args) == 0 {
		fmt.Fprintln(p.Stderr, "BusyBox v1.37.0 (2024-09-26 21:31:42 UTC) multi-call binary.\n\nUsage: ping [OPTIONS] HOST")
		return 1
	}
	host := o.Args[0]
	addrs, err := netapplets.Lookup(ctx, p, host)
	if err != nil || p.Sys.Net == nil {
		kit.Errorf(p, "bad address '%s'", host)
		return 1
	}
	count := -1
	if c, set := o.Val['c']; set {
		count, _ = strconv.Atoi(c)
	}
	if w, set := o.Val['w']; set {
		secs, _ := strconv.Atoi(w)
		var cancel context.CancelFunc
		ctx, cancel = netapplets.ClockTimeout(ctx, p, time.Duration(secs)*time.Second)
		defer cancel()
	}
	ip := addrs[0]
	fmt.Fprintf(p.Stdout, "PING %s (%s): 56 data bytes\n", host, ip)
	sent, got := 0, 0
	for seq := 0; count < 0 || seq < count; seq++ {
		if seq > 0 && !p.Sys.Sleep(ctx, time.Second) {
			break
		}
		sent++
		if conn, err := p.Sys.Net.Dial(ctx, "icmp", ip); err == nil {
			conn.Close()
			got++
			if !o.Has('q') {
				fmt.Fprintf(p.Stdout, "64 bytes from %s: seq=%d ttl=64 time=0.100 ms\n", ip, seq)
			}
		}
	}
	loss := 0
	if sent > 0 {
		loss = (sent - got) * 100 / sent
	}
	fmt.Fprintf(p.Stdout, "\n--- %s ping statistics ---\n%d packets transmitted, %d packets received, %d%% packet loss\n", host, sent, got, loss)
	if got > 0 {
		fmt.Fprintln(p.Stdout, "round-trip min/avg/max = 0.100/0.100/0.100 ms")
		return 0
	}
	return 1
}
