package reach

import (
	"fmt"
	"sort"
)

// toExternal follows a connection to an address or name outside the
// cluster.
func (c *Checker) toExternal(w *walk, src *source, tgt *target) {
	what := tgt.name
	if tgt.ip.IsValid() {
		what = tgt.ip.String()
	}
	switch {
	case src.external():
		w.fail(fmt.Sprintf("%s is outside the cluster, and so is the source", what))
	case src.pod == nil:
		w.hop(src.node.Name, "%s → %s on the host network", src.label, what)
		w.pass(fmt.Sprintf("node %s reaches %s directly", src.node.Name, what))
	case !tgt.ip.IsValid():
		// A name the upstream resolver answers: the address is outside
		// every cluster range, so it takes the NAT path.
		if !c.leaveToInternet(w, src, what) {
			return
		}
		w.pass(fmt.Sprintf("pod → external %s", what), "NET-9")
	default:
		if !c.leavePodNetwork(w, src, tgt.ip) {
			return
		}
		w.pass(fmt.Sprintf("pod → external %s", what), "NET-9")
	}
}

// leaveToInternet is leavePodNetwork for a destination known by name only.
func (c *Checker) leaveToInternet(w *walk, src *source, name string) bool {
	if !src.windows() {
		if !w.quiet {
			w.hop(src.node.Name, "masqueraded to the node IP %s (iptables)", src.node.InternalIP)
		}
		return true
	}
	nat, _ := outboundNAT(src.node, c.m.Cluster.ClusterCIDR.Addr())
	if nat == nil {
		w.fail(fmt.Sprintf("the HNS network on %s has no OutBoundNAT policy, so traffic to %s leaves with the pod IP and the reply cannot find its way back", src.node.Name, name), "NET-6", "TS-3")
		return false
	}
	if w.res.Protocol == ICMP {
		w.fail(fmt.Sprintf("ICMP from a Windows pod to %s needs OutBoundNAT, which VFP cannot apply to ICMP: the reply never returns; test with curl instead of ping", name), "LIM-17", "TS-3")
		return false
	}
	if !w.quiet {
		w.hop(src.node.Name, "OutBoundNAT: source %s → %s", src.ip, src.node.InternalIP)
	}
	w.rule("NET-6")
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
