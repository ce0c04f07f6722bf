package netcmds

import (
	"context"
	"io"
	"net"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// serveUDP is netexec's UDP server on --udp-port: it answers the
// hostname, echo and clientip commands, one datagram each. The pod's one
// address takes what every --udp-listen-addresses entry would.
func (n *netexec) serveUDP(ctx context.Context, addrs []string) {
	for _, addr := range addrs {
		n.Log.Printf("Started UDP server on port %s %d", addr, n.f.udpPort)
	}
	srv, ok := n.P.Sys.Net.(program.Server)
	if !ok {
		return
	}
	if err := srv.Serve(ctx, "udp", n.f.udpPort, n.udpClient); err != nil {
		n.Log.Printf("Error occurred: failed to create listener for UDP address :%d:%v", n.f.udpPort, err)
	}
}

// udpClient answers the datagrams of one client until it goes away.
func (n *netexec) udpClient(c io.ReadWriteCloser) {
	defer c.Close()
	client := ""
	if nc, ok := c.(net.Conn); ok {
		client = nc.RemoteAddr().String()
	}
	buf := make([]byte, 2048)
	for {
		k, err := c.Read(buf)
		if err != nil {
			return
		}
		resp, ok := n.udpCommand(strings.ToLower(strings.TrimSpace(string(buf[:k]))), client)
		if !ok {
			continue
		}
		if _, err := c.Write([]byte(resp)); err != nil {
			return
		}
	}
}

// udpCommand is the answer to one command; ok is false for one that gets
// none (an empty or unknown command, which is logged).
func (n *netexec) udpCommand(text, client string) (resp string, ok bool) {
	switch {
	case text == "hostname":
		n.Log.Printf("Sending udp hostName response")
		return n.P.Sys.Hostname, true
	case strings.HasPrefix(text, "echo "):
		resp = strings.TrimPrefix(text, "echo ")
		n.Log.Printf("Echoing %v to UDP client %s", resp, client)
		return resp, true
	case text == "clientip":
		n.Log.Printf("Sending clientip back to UDP client %s", client)
		return client, true
	case text != "":
		n.Log.Printf("Unknown UDP command received from %s: %v", client, text)
	}
	return "", false
}
