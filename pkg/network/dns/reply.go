package dns

import miekg "github.com/miekg/dns"

// Reply is the answer to one DNS message from the records, at most
// maxSize bytes once packed (a truncated UDP answer has TC set). Names
// outside the cluster domain get REFUSED: that is what CoreDNS answers
// when its only server block is the cluster zone and nothing forwards the
// rest.
func (r *Records) Reply(req *miekg.Msg, maxSize int) *miekg.Msg {
	m := new(miekg.Msg)
	switch {
	case req.Opcode != miekg.OpcodeQuery:
		m.SetRcode(req, miekg.RcodeNotImplemented)
	case len(req.Question) != 1:
		m.SetRcodeFormatError(req)
	case req.Question[0].Qclass != miekg.ClassINET && req.Question[0].Qclass != miekg.ClassANY:
		m.SetRcode(req, miekg.RcodeRefused)
	default:
		q := req.Question[0]
		a := r.Lookup(q.Name, q.Qtype)
		m.SetReply(req)
		if !a.Authoritative && a.Rcode == miekg.RcodeNameError {
			m.Rcode = miekg.RcodeRefused
			break
		}
		m.Authoritative = a.Authoritative
		m.Rcode = a.Rcode
		m.Answer, m.Ns, m.Extra = a.RRs(), a.Ns, a.Extra
	}
	if opt := req.IsEdns0(); opt != nil {
		// Echo the client's buffer size, as CoreDNS does.
		m.SetEdns0(max(opt.UDPSize(), miekg.MinMsgSize), false)
	}
	m.Compress = true
	m.Truncate(maxSize)
	return m
}

// ReplySize is the largest reply a client takes: 64 KiB over TCP, its
// EDNS0 buffer size or 512 bytes over UDP.
func ReplySize(req *miekg.Msg, tcp bool) int {
	if tcp {
		return miekg.MaxMsgSize
	}
	if opt := req.IsEdns0(); opt != nil {
		return max(int(opt.UDPSize()), miekg.MinMsgSize)
	}
	return miekg.MinMsgSize
}
