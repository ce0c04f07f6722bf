package dns

import (
	"net/netip"
	"strings"

	miekg "github.com/miekg/dns"
)

// TTL is the time to live of every answer, CoreDNS's kubernetes default.
const TTL = 5

// SchemaVersion is the version of the Kubernetes DNS specification the
// records follow, served as TXT at dns-version.<domain>.
const SchemaVersion = "1.1.0"

// maxCNAMEChase bounds following ExternalName CNAMEs inside the cluster
// domain, so two Services naming each other cannot loop.
const maxCNAMEChase = 8

// Answer is the reply to one question. Rcode is miekg.RcodeSuccess or
// miekg.RcodeNameError (NXDOMAIN); success with no records is NODATA: the
// name exists but has no record of the asked type.
type Answer struct {
	Rcode int
	// Authoritative is true for names in the cluster domain and for the
	// reverse names of cluster addresses. Other names get NXDOMAIN here: a
	// server without upstreams decides how to refuse them.
	Authoritative bool
	// The answer section, by type. CNAME comes first on the wire.
	CNAME []*miekg.CNAME
	A     []*miekg.A
	AAAA  []*miekg.AAAA
	SRV   []*miekg.SRV
	PTR   []*miekg.PTR
	TXT   []*miekg.TXT
	SOA   []*miekg.SOA
	// Ns is the authority section: the zone's SOA on negative answers, so
	// resolvers cache the denial for its minimum TTL.
	Ns []miekg.RR
	// Extra is the additional section: the addresses of SRV targets.
	Extra []miekg.RR
}

// RRs returns the answer section in wire order.
func (a Answer) RRs() []miekg.RR {
	var out []miekg.RR
	out = appendRRs(out, a.CNAME)
	out = appendRRs(out, a.A)
	out = appendRRs(out, a.AAAA)
	out = appendRRs(out, a.SRV)
	out = appendRRs(out, a.PTR)
	out = appendRRs(out, a.TXT)
	return appendRRs(out, a.SOA)
}

// appendRRs appends records of one concrete type as miekg.RR values.
func appendRRs[T miekg.RR](out []miekg.RR, rrs []T) []miekg.RR {
	for _, rr := range rrs {
		out = append(out, rr)
	}
	return out
}

// Addrs returns the addresses of the A and AAAA records.
func (a Answer) Addrs() []netip.Addr {
	var out []netip.Addr
	for _, rr := range a.A {
		if ip, ok := netip.AddrFromSlice(rr.A); ok {
			out = append(out, ip.Unmap())
		}
	}
	for _, rr := range a.AAAA {
		if ip, ok := netip.AddrFromSlice(rr.AAAA); ok {
			out = append(out, ip)
		}
	}
	return out
}

// NoData reports a successful answer without records.
func (a Answer) NoData() bool {
	return a.Rcode == miekg.RcodeSuccess && len(a.RRs()) == 0
}

// Lookup answers a question for name (case-insensitive, with or without
// the trailing dot) of type qtype (miekg.TypeA, TypeSRV, ...).
func (r *Records) Lookup(name string, qtype uint16) Answer {
	owner := miekg.Fqdn(name)
	q := strings.ToLower(strings.TrimSuffix(name, "."))
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.lookup(owner, q, qtype, 0)
}

// Candidates is the package's Candidates for these records' domain.
func (r *Records) Candidates(name, namespace, os string) []string {
	return Candidates(name, namespace, os, r.domain)
}

// LookupA answers an A query for fqdn the way a model of the network needs
// it: the addresses (following CNAMEs inside the cluster domain), the first
// CNAME target without its trailing dot, and found false for NXDOMAIN.
func (r *Records) LookupA(fqdn string) (ips []netip.Addr, cname string, found bool) {
	a := r.Lookup(fqdn, miekg.TypeA)
	if len(a.CNAME) > 0 {
		cname = strings.TrimSuffix(a.CNAME[0].Target, ".")
	}
	return a.Addrs(), cname, a.Rcode == miekg.RcodeSuccess
}

func (r *Records) lookup(owner, q string, qtype uint16, depth int) Answer {
	if isReverse(q) {
		return r.reverse(owner, q, qtype)
	}
	base, ok := r.trimDomain(q)
	if !ok {
		return Answer{Rcode: miekg.RcodeNameError}
	}
	var f found
	switch {
	case base == "":
		if qtype == miekg.TypeSOA {
			return Answer{Authoritative: true, SOA: []*miekg.SOA{r.soa()}}
		}
		f = found{exists: true}
	case base == "dns-version":
		if qtype == miekg.TypeTXT {
			txt := &miekg.TXT{Hdr: header(owner, miekg.TypeTXT), Txt: []string{SchemaVersion}}
			return Answer{Authoritative: true, TXT: []*miekg.TXT{txt}}
		}
		f = found{exists: true}
	default:
		f = r.find(strings.Split(base, "."))
	}
	if f.cname != "" {
		return r.follow(owner, f.cname, qtype, depth)
	}
	return r.render(owner, qtype, f)
}

// trimDomain returns the labels of q left of the cluster domain.
func (r *Records) trimDomain(q string) (string, bool) {
	if q == r.domain {
		return "", true
	}
	base, ok := strings.CutSuffix(q, "."+r.domain)
	return base, ok
}

// found is what a name stands for: whether it exists, the addresses and
// ports behind it, or the name it is an alias of.
type found struct {
	exists  bool
	targets []target
	cname   string
}

// target is one address behind a name: for SRV, port on host (the name
// whose A/AAAA record holds addr).
type target struct {
	addr netip.Addr
	port int32
	host string
}

// find parses <...>.svc and <...>.pod names as CoreDNS does.
func (r *Records) find(labels []string) found {
	last := len(labels) - 1
	rest := labels[:last]
	switch labels[last] {
	case "svc":
		return r.findService(rest)
	case "pod":
		return r.findPod(rest)
	}
	return found{}
}

// findService: labels are what precedes "svc": [ns], [svc ns],
// [endpoint svc ns] or [_port _proto svc ns].
func (r *Records) findService(labels []string) found {
	n := len(labels)
	switch {
	case n == 0:
		return found{exists: true}
	case n == 1:
		return found{exists: r.namespaces[labels[0]] > 0}
	case n > 4:
		return found{}
	}
	svc := r.services[objKey{ns: labels[n-1], name: labels[n-2]}]
	if svc == nil {
		return found{}
	}
	if svc.kind == externalName {
		// An alias has no endpoints and no ports of its own.
		if n != 2 || !isHostname(svc.external) {
			return found{}
		}
		return found{exists: true, cname: svc.external}
	}
	var portName, proto, host string
	switch n {
	case 3:
		host = labels[0]
	case 4:
		portName, proto = strings.TrimPrefix(labels[0], "_"), strings.TrimPrefix(labels[1], "_")
	}
	if svc.kind == headless || host != "" {
		return r.endpointTargets(svc, host, portName, proto)
	}
	f := found{}
	for _, p := range svc.ports {
		if !p.matches(portName, proto) {
			continue
		}
		f.exists = true
		for _, ip := range svc.ips {
			f.targets = append(f.targets, target{addr: ip, port: p.number, host: r.serviceName(svc.key)})
		}
	}
	return f
}

func (p port) matches(name, proto string) bool {
	return (name == "" || name == p.name) && (proto == "" || proto == p.proto)
}

// endpointTargets are the ready endpoints of a Service, filtered by
// endpoint name and port; none is NXDOMAIN (spec 2.4.1).
func (r *Records) endpointTargets(svc *service, host, portName, proto string) found {
	f := found{}
	for _, sl := range r.bySvc[svc.key] {
		for _, e := range sl.endpoints {
			if host != "" && e.host != host {
				continue
			}
			for _, p := range sl.ports {
				if !p.matches(portName, proto) {
					continue
				}
				for _, a := range e.addrs {
					f.targets = append(f.targets, target{addr: a, port: p.number, host: e.fqdn})
				}
			}
		}
	}
	f.exists = len(f.targets) > 0
	return f
}

func (r *Records) serviceName(k objKey) string {
	return k.name + "." + k.ns + ".svc." + r.domain + "."
}

// PodMode is the CoreDNS kubernetes plugin's "pods" mode the records
// answer pod names in (findPod); the cluster's Corefile declares it.
const PodMode = "insecure"

// findPod: labels are what precedes "pod": [ns] or [a-b-c-d ns]. As
// CoreDNS's "pods insecure" (the cluster's Corefile): any address answers
// in a namespace that exists; a label that is not an address does not.
func (r *Records) findPod(labels []string) found {
	switch len(labels) {
	case 0:
		return found{exists: true}
	case 1:
		return found{exists: r.namespaces[labels[0]] > 0}
	case 2:
		addr, ok := undash(labels[0])
		if !ok || r.namespaces[labels[1]] == 0 {
			return found{}
		}
		return found{exists: true, targets: []target{{addr: addr, port: -1}}}
	}
	return found{}
}

// undash reads a dashed address: three dashes and no "--" is IPv4,
// anything else IPv6.
func undash(label string) (netip.Addr, bool) {
	s := strings.ReplaceAll(label, "-", ":")
	if strings.Count(label, "-") == 3 && !strings.Contains(label, "--") {
		s = strings.ReplaceAll(label, "-", ".")
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a, true
}

// isHostname rejects ExternalNames that are IP addresses, which CoreDNS
// does not turn into a CNAME.
func isHostname(s string) bool {
	_, err := netip.ParseAddr(s)
	return s != "" && err != nil
}

// follow answers a CNAME, and the question again at its target while that
// is inside the cluster domain: there is no upstream to ask about the rest.
func (r *Records) follow(owner, cname string, qtype uint16, depth int) Answer {
	rr := &miekg.CNAME{Hdr: header(owner, miekg.TypeCNAME), Target: cname + "."}
	a := Answer{Authoritative: true, CNAME: []*miekg.CNAME{rr}}
	if qtype == miekg.TypeCNAME || depth >= maxCNAMEChase {
		return a
	}
	if _, inside := r.trimDomain(cname); !inside {
		return a
	}
	next := r.lookup(rr.Target, cname, qtype, depth+1)
	next.CNAME = append(a.CNAME, next.CNAME...)
	next.Authoritative = true
	return next
}
