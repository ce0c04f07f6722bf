package dns

import (
	"net/netip"

	miekg "github.com/miekg/dns"
)

// render turns what a name stands for into the records of qtype.
func (r *Records) render(owner string, qtype uint16, f found) Answer {
	if !f.exists {
		return Answer{Rcode: miekg.RcodeNameError, Authoritative: true, Ns: []miekg.RR{r.soa()}}
	}
	a := Answer{Authoritative: true}
	switch qtype {
	case miekg.TypeA:
		a.A = aRecords(owner, f.targets)
	case miekg.TypeAAAA:
		a.AAAA = aaaaRecords(owner, f.targets)
	case miekg.TypeANY:
		a.A, a.AAAA = aRecords(owner, f.targets), aaaaRecords(owner, f.targets)
	case miekg.TypeSRV:
		a.SRV, a.Extra = srvRecords(owner, f.targets)
	}
	if len(a.RRs()) == 0 {
		a.Ns = []miekg.RR{r.soa()}
	}
	return a
}

func header(owner string, t uint16) miekg.RR_Header {
	return miekg.RR_Header{Name: owner, Rrtype: t, Class: miekg.ClassINET, Ttl: TTL}
}

func aRecords(owner string, ts []target) []*miekg.A {
	var out []*miekg.A
	seen := map[netip.Addr]bool{}
	for _, t := range ts {
		if t.addr.Is4() && !seen[t.addr] {
			seen[t.addr] = true
			out = append(out, &miekg.A{Hdr: header(owner, miekg.TypeA), A: t.addr.AsSlice()})
		}
	}
	return out
}

func aaaaRecords(owner string, ts []target) []*miekg.AAAA {
	var out []*miekg.AAAA
	seen := map[netip.Addr]bool{}
	for _, t := range ts {
		if t.addr.Is6() && !seen[t.addr] {
			seen[t.addr] = true
			out = append(out, &miekg.AAAA{Hdr: header(owner, miekg.TypeAAAA), AAAA: t.addr.AsSlice()})
		}
	}
	return out
}

// srvRecords makes one SRV per distinct host and port, all of priority 0
// and equal weight summing to about 100 as CoreDNS does, with the hosts'
// addresses for the additional section.
func srvRecords(owner string, ts []target) ([]*miekg.SRV, []miekg.RR) {
	type hostPort struct {
		host string
		port int32
	}
	var srvs []*miekg.SRV
	seen := map[hostPort]bool{}
	for _, t := range ts {
		hp := hostPort{t.host, t.port}
		if t.port <= 0 || t.host == "" || seen[hp] {
			continue
		}
		seen[hp] = true
		srvs = append(srvs, &miekg.SRV{Hdr: header(owner, miekg.TypeSRV), Port: uint16(t.port), Target: t.host})
	}
	if len(srvs) == 0 {
		return nil, nil
	}
	weight := uint16(max(100/len(srvs), 1))
	for _, s := range srvs {
		s.Weight = weight
	}
	var extra []miekg.RR
	added := map[target]bool{}
	for _, t := range ts {
		k := target{addr: t.addr, host: t.host}
		if t.port <= 0 || t.host == "" || added[k] {
			continue
		}
		added[k] = true
		if t.addr.Is4() {
			extra = append(extra, &miekg.A{Hdr: header(t.host, miekg.TypeA), A: t.addr.AsSlice()})
		} else {
			extra = append(extra, &miekg.AAAA{Hdr: header(t.host, miekg.TypeAAAA), AAAA: t.addr.AsSlice()})
		}
	}
	return srvs, extra
}

// soa is the cluster zone's SOA in CoreDNS's shape: the serial changes with
// every update, the minimum TTL (negative caching) is the answer TTL.
func (r *Records) soa() *miekg.SOA {
	zone := r.domain + "."
	return &miekg.SOA{
		Hdr:     header(zone, miekg.TypeSOA),
		Ns:      "ns.dns." + zone,
		Mbox:    "hostmaster." + zone,
		Serial:  r.generation,
		Refresh: 7200,
		Retry:   1800,
		Expire:  86400,
		Minttl:  TTL,
	}
}

// SOA returns the cluster zone's SOA record.
func (r *Records) SOA() *miekg.SOA {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.soa()
}
