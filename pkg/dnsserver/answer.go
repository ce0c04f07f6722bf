package dnsserver

import (
	"net"

	miekg "github.com/miekg/dns"

	clusterdns "github.com/winkube/winkube/pkg/network/dns"
)

// answer replies to one DNS message from the records.
func (s *Server) answer(w miekg.ResponseWriter, req *miekg.Msg) {
	_, tcp := w.RemoteAddr().(*net.TCPAddr)
	_ = w.WriteMsg(s.records.Reply(req, clusterdns.ReplySize(req, tcp))) // a client that went away needs no answer
}
