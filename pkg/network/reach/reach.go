// Package reach answers "can this source reach that target, and if not,
// why?" by walking a connection through the network model: name resolution
// (DNS-1 on Windows), Service VIPs and the load balancers kube-proxy
// programmed (KP-3), NodePorts (LIM-16), OutBoundNAT and its ExceptionList
// (NET-6), VXLAN between nodes (NET-2, NET-11) and ICMP (LIM-17). Every
// verdict lists the rule IDs that decided it.
package reach

import (
	"fmt"
	"net/netip"
	"sort"

	"github.com/winkube/winkube/pkg/rules"
)

// Protocols a check can use.
const (
	TCP  = "tcp"
	UDP  = "udp"
	ICMP = "icmp"
)

// Request is one question: can Source reach Target on Port/Protocol?
type Request struct {
	// Source is pod/NS/NAME, node/NAME or external.
	Source string
	// Target is pod/NS/NAME, svc/NS/NAME, node/NAME, an IP or a DNS name.
	Target string
	// Port is 0 when not given: a Service's first port, any port otherwise.
	Port     int
	Protocol string
}

// Hop is one step of the walk: where the packet is and what happened.
type Hop struct {
	At   string `json:"at"`
	What string `json:"what"`
}

// Result is the answer, in the shape `winkube net check -o json` prints.
type Result struct {
	Source     string   `json:"source"`
	Target     string   `json:"target"`
	Port       int      `json:"port"`
	Protocol   string   `json:"protocol"`
	ResolvedIP string   `json:"resolvedIP"`
	Reachable  bool     `json:"reachable"`
	Backend    string   `json:"backend"`
	Hops       []Hop    `json:"hops"`
	Rules      []string `json:"rules"`
	Reason     string   `json:"reason"`

	backend netip.AddrPort // Backend's address, when load-balanced
}

// BackendAddr is the address a load balancer sent the connection to, the
// last word of Backend; false when no load balancer chose one.
func (r *Result) BackendAddr() (netip.AddrPort, bool) { return r.backend, r.backend.IsValid() }

// InputError is a request that names something that does not exist or
// cannot be parsed: `net check` exits 2 on it.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErr(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// walk collects hops and rules while a check runs.
type walk struct {
	res   *Result
	srcIP netip.Addr // the client address Service session affinity keys on
	// quiet walks record no hops (Verdict); the busiest hops test it
	// before building their arguments, which cost even when unused.
	quiet bool
}

func (w *walk) hop(at, format string, args ...any) {
	if w.quiet {
		return
	}
	w.res.Hops = append(w.res.Hops, Hop{At: at, What: fmt.Sprintf(format, args...)})
}

func (w *walk) rule(ids ...string) {
	for _, id := range ids {
		if id == "" {
			continue
		}
		found := false
		for _, r := range w.res.Rules {
			found = found || r == id
		}
		if !found {
			w.res.Rules = append(w.res.Rules, id)
		}
	}
}

// fail ends the walk unreachable.
func (w *walk) fail(reason string, rules ...string) {
	w.rule(rules...)
	w.res.Reachable = false
	w.res.Reason = reason
}

// pass ends the walk reachable.
func (w *walk) pass(reason string, rules ...string) {
	w.rule(rules...)
	w.res.Reachable = true
	w.res.Reason = reason
}

// finish sorts the rules so the output is stable.
func (w *walk) finish() *Result {
	sort.Slice(w.res.Rules, func(i, j int) bool { return rules.Less(w.res.Rules[i], w.res.Rules[j]) })
	if w.res.Hops == nil {
		w.res.Hops = []Hop{}
	}
	if w.res.Rules == nil {
		w.res.Rules = []string{}
	}
	return w.res
}
