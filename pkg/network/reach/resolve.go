package reach

import (
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Resolver answers cluster DNS the way the DNS server does.
type Resolver interface {
	// Candidates are the fully-qualified names the resolver of a pod in
	// namespace on os ("windows" or "linux") queries for name, in order.
	Candidates(name, namespace, os string) []string
	// LookupA answers an A query for a fully-qualified name: its
	// addresses, or the target of a CNAME; found is false for NXDOMAIN.
	LookupA(fqdn string) (ips []netip.Addr, cname string, found bool)
}

// resolve turns a DNS name into a target as src's resolver would.
func (c *Checker) resolve(w *walk, src *source, name string) (*target, bool, error) {
	if src.pod == nil || !usesClusterDNS(src.pod) {
		return c.resolveOnHost(w, src, name)
	}
	os := src.node.OS
	ns := src.pod.Namespace
	for _, fqdn := range c.resolver.Candidates(name, ns, os) {
		ips, cname, found := c.resolver.LookupA(fqdn)
		if !found {
			w.hop("dns", "%s: NXDOMAIN", fqdn)
			continue
		}
		if cname != "" {
			w.hop("dns", "%s: CNAME %s", fqdn, cname)
			return &target{name: cname}, true, nil
		}
		if len(ips) == 0 {
			w.hop("dns", "%s: no addresses", fqdn)
			continue
		}
		w.hop("dns", "%s: %s", fqdn, ips[0])
		c.resolvedIP(w, ips[0])
		return c.byIP(ips[0]), true, nil
	}
	if os == "windows" && c.resolvesOnLinux(name, ns) {
		w.fail(fmt.Sprintf("%q does not resolve in a Windows pod: Windows resolvers have one DNS suffix (%s.svc.%s) and treat any name with a dot as fully qualified; use %q or the full name",
			name, ns, c.domain(), firstLabel(name)), "DNS-1", "TS-12")
		return nil, false, nil
	}
	if !strings.Contains(strings.TrimSuffix(name, "."), ".") || c.inClusterDomain(name) {
		w.fail(fmt.Sprintf("%q does not resolve: no such name in the cluster DNS", name))
		return nil, false, nil
	}
	w.hop("dns", "%s is not a cluster name: the cluster DNS forwards it to the upstream resolver", name)
	return &target{name: name}, true, nil
}

// resolveOnHost: nodes, external clients and pods with dnsPolicy Default
// use the host's resolver, which knows no cluster names.
func (c *Checker) resolveOnHost(w *walk, src *source, name string) (*target, bool, error) {
	if !strings.Contains(strings.TrimSuffix(name, "."), ".") || c.inClusterDomain(name) {
		w.fail(fmt.Sprintf("%q is a cluster name, but %s resolves names with the host's DNS, not the cluster DNS", name, src.label))
		return nil, false, nil
	}
	w.hop("dns", "%s: resolved by the host's resolver", name)
	return &target{name: name}, true, nil
}

func (c *Checker) resolvesOnLinux(name, namespace string) bool {
	for _, fqdn := range c.resolver.Candidates(name, namespace, "linux") {
		if ips, cname, found := c.resolver.LookupA(fqdn); found && (len(ips) > 0 || cname != "") {
			return true
		}
	}
	return false
}

func (c *Checker) resolvedIP(w *walk, ip netip.Addr) {
	if w.res.ResolvedIP == "" {
		w.res.ResolvedIP = ip.String()
	}
}

func (c *Checker) domain() string {
	if c.m.Cluster.ClusterDomain != "" {
		return c.m.Cluster.ClusterDomain
	}
	return "cluster.local"
}

func (c *Checker) inClusterDomain(name string) bool {
	n := strings.TrimSuffix(strings.ToLower(name), ".")
	return n == c.domain() || strings.HasSuffix(n, "."+c.domain())
}

// usesClusterDNS follows the pod's dnsPolicy: ClusterFirst (the default)
// uses the cluster DNS unless the pod is on the host network.
func usesClusterDNS(p *corev1.Pod) bool {
	switch p.Spec.DNSPolicy {
	case corev1.DNSDefault, corev1.DNSNone:
		return false
	case corev1.DNSClusterFirstWithHostNet:
		return true
	}
	return !p.Spec.HostNetwork
}

func firstLabel(name string) string {
	l, _, _ := strings.Cut(name, ".")
	return l
}
