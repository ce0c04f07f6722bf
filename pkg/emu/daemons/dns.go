package daemons

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/winkube/winkube/pkg/emu/program"
)

// dnsPort is the port the cluster's DNS server answers on.
const dnsPort = 53

// maxDNSMessage is the largest DNS message (TCP's two-byte length).
const maxDNSMessage = 65535

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
		query, err := readDNS(c, tcp)
		if err != nil {
			return
		}
		reply, err := p.Sys.ClusterDNS(query, tcp)
		if err != nil {
			continue // a malformed query gets no answer, as CoreDNS drops it
		}
		if tcp {
			reply = append(binary.BigEndian.AppendUint16(nil, uint16(len(reply))), reply...)
		}
		if _, err := c.Write(reply); err != nil {
			return
		}
	}
}

func readDNS(c io.Reader, tcp bool) ([]byte, error) {
	if !tcp {
		buf := make([]byte, maxDNSMessage)
		n, err := c.Read(buf)
		if n == 0 && err == nil {
			err = io.ErrUnexpectedEOF
		}
		return buf[:n], err
	}
	var size [2]byte
	if _, err := io.ReadFull(c, size[:]); err != nil {
		return nil, err
	}
	buf := make([]byte, binary.BigEndian.Uint16(size[:]))
	_, err := io.ReadFull(c, buf)
	return buf, err
}
