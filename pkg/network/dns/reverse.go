package dns

import (
	"net/netip"
	"slices"
	"strings"

	miekg "github.com/miekg/dns"
)

const (
	reverse4 = ".in-addr.arpa"
	reverse6 = ".ip6.arpa"
)

func isReverse(q string) bool {
	return strings.HasSuffix(q, reverse4) || strings.HasSuffix(q, reverse6)
}

// reverse answers PTR questions for cluster addresses (spec 2.3.3, 2.4.3):
// a ClusterIP names its Service, a ready endpoint address names
// <hostname>.<service>.<ns>.svc. Other addresses are not the cluster's.
func (r *Records) reverse(owner, q string, qtype uint16) Answer {
	addr, ok := fromReverse(q)
	if !ok {
		return Answer{Rcode: miekg.RcodeNameError}
	}
	names := r.namesOf(addr)
	if len(names) == 0 {
		return Answer{Rcode: miekg.RcodeNameError}
	}
	a := Answer{Authoritative: true}
	if qtype != miekg.TypePTR {
		return a
	}
	for _, n := range names {
		a.PTR = append(a.PTR, &miekg.PTR{Hdr: header(owner, miekg.TypePTR), Ptr: n})
	}
	return a
}

func (r *Records) namesOf(addr netip.Addr) []string {
	if key, ok := r.vips[addr]; ok {
		return []string{r.serviceName(key)}
	}
	var names []string
	for key := range r.epIPs[addr] {
		sl := r.slices[key]
		for _, e := range sl.endpoints {
			if slices.Contains(e.addrs, addr) {
				names = append(names, e.fqdn)
			}
		}
	}
	slices.Sort(names) // map order must not reorder answers
	return slices.Compact(names)
}

// fromReverse reads the address of a full reverse name:
// d.c.b.a.in-addr.arpa or 32 nibbles.ip6.arpa.
func fromReverse(q string) (netip.Addr, bool) {
	if base, ok := strings.CutSuffix(q, reverse4); ok {
		labels := strings.Split(base, ".")
		if len(labels) != 4 {
			return netip.Addr{}, false
		}
		slices.Reverse(labels)
		a, err := netip.ParseAddr(strings.Join(labels, "."))
		return a, err == nil && a.Is4()
	}
	base, _ := strings.CutSuffix(q, reverse6)
	nibbles := strings.Split(base, ".")
	if len(nibbles) != 32 {
		return netip.Addr{}, false
	}
	slices.Reverse(nibbles)
	var b strings.Builder
	for i, n := range nibbles {
		if len(n) != 1 {
			return netip.Addr{}, false
		}
		if i > 0 && i%4 == 0 {
			b.WriteByte(':')
		}
		b.WriteString(n)
	}
	a, err := netip.ParseAddr(b.String())
	return a, err == nil && a.Is6()
}
