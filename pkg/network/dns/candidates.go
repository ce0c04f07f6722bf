// Package dns is the cluster DNS as the Kubernetes DNS specification
// (github.com/kubernetes/dns, docs/specification.md) and CoreDNS's kubernetes
// plugin define it: the records the cluster's objects make (Records), and the
// names a pod's resolver asks for when a program looks a name up
// (Candidates), which is where Windows and Linux pods differ (DNS-1).
//
// The package is pure: objects in, answers out, no I/O. The records use the
// types of github.com/miekg/dns, the library CoreDNS is built on, so a server
// can put an Answer on the wire as it is.
package dns

import "strings"

// DefaultClusterDomain is the kubelet's default --cluster-domain.
const DefaultClusterDomain = "cluster.local"

// linuxNdots is the ndots option the kubelet writes into a ClusterFirst
// pod's resolv.conf: names with fewer dots try the search list first.
const linuxNdots = 5

// Candidates returns the names, fully qualified and without the trailing
// dot, that the resolver of a pod in namespace on os ("windows" or "linux")
// queries for name, in the order it queries them; the first that exists
// answers. A trailing dot makes name absolute on both systems.
//
// Windows pods get one DNS suffix, <namespace>.svc.<domain>, and treat any
// name with a dot in it as fully qualified (DNS-1). Linux pods get the
// kubelet's search list <namespace>.svc.<domain> svc.<domain> <domain> with
// ndots:5.
func Candidates(name, namespace, os, clusterDomain string) []string {
	domain := strings.TrimSuffix(clusterDomain, ".")
	if domain == "" {
		domain = DefaultClusterDomain
	}
	if name == "" || name == "." {
		return nil
	}
	if strings.HasSuffix(name, ".") {
		return []string{strings.TrimSuffix(name, ".")}
	}
	nsSuffix := namespace + ".svc." + domain
	if strings.EqualFold(os, "windows") {
		if strings.Contains(name, ".") {
			return []string{name}
		}
		return []string{name + "." + nsSuffix}
	}
	search := []string{nsSuffix, "svc." + domain, domain}
	out := make([]string, 0, len(search)+1)
	asIs := strings.Count(name, ".") >= linuxNdots
	if asIs {
		out = append(out, name)
	}
	for _, s := range search {
		out = append(out, name+"."+s)
	}
	if !asIs {
		out = append(out, name)
	}
	return out
}
