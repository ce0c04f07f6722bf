package daemons

import (
	"context"
	"fmt"
	"io"

	"github.com/winkube/winkube/pkg/emu/dnsutils"
	"github.com/winkube/winkube/pkg/emu/program"
)

// dnsPort is the port the cluster's DNS server answers on.
const dnsPort = 53

// serveClusterDNS answers the cluster zone on port 53 over UDP and TCP, as
// the cluster's CoreDNS does with its kubernetes plugin: the answers come
// from the node's view of the API (Sys.ClusterDNS). Without a network
// that serves without a waiting goroutine, or outside a cluster, it only
// waits.
func serveClusterDNS(ctx context.Context, p *program.Proc) {
	srv, ok := p.Sys.Net.(program.Server)
	if !ok || p.Sys.ClusterDNS == nil {
		return
	}
	for _, proto := range []string{"udp", "tcp"} {
		tcp := proto == "tcp"
		err := srv.Serve(ctx, proto, dnsPort, func(c io.ReadWriteCloser) { answerDNS(p, c, tcp) })
		if err != nil {
			fmt.Fprintf(p.Stderr, "[ERROR] Restart failed: listen %s :%d: %s\n", proto, dnsPort, program.ErrorText(err, p.Sys.Windows))
		}
	}
}

// answerDNS answers the messages of one client until it goes away: one
// datagram a message over UDP, two-byte length-prefixed over TCP.
func answerDNS(p *program.Proc, c io.ReadWriteCloser, tcp bool) {
	defer c.Close()
	for {
		query, err := dnsutils.ReadMsg(c, tcp)
		if err != nil || (!tcp && len(query) == 0) {
			return
		}
		reply, err := p.Sys.ClusterDNS(query, tcp)
		if err != nil {
			continue // a malformed query gets no answer, as CoreDNS drops it
		}
		if err := dnsutils.WriteMsg(c, reply, tcp); err != nil {
			return
		}
	}
}
