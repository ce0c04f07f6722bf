package reach

import (
	"fmt"
	"net/netip"
	"strconv"
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
	if src.pod == nil || !c.usesClusterDNS(src.pod) {
		return c.resolveOnHost(w, src, name)
	}
	os := src.node.OS
	ns := src.pod.Namespace
	for _, fqdn := range c.candidates(src.pod, name, os) {
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

// candidates are the names src's resolver asks for: the kubelet's search
// list for its policy, or the one a dnsPolicy None pod configures (a
// Windows resolver tries each suffix for a name without a dot, a Linux one
// the search list before the name while it has fewer dots than ndots).
func (c *Checker) candidates(p *corev1.Pod, name, os string) []string {
	if p.Spec.DNSPolicy != corev1.DNSNone || p.Spec.DNSConfig == nil {
		return c.resolver.Candidates(name, p.Namespace, os)
	}
	name = strings.TrimSuffix(name, ".")
	var searched []string
	for _, s := range p.Spec.DNSConfig.Searches {
		searched = append(searched, name+"."+strings.TrimSuffix(s, "."))
	}
	if os == "windows" {
		if strings.Contains(name, ".") {
			return []string{name}
		}
		return searched
	}
	if strings.Count(name, ".") >= ndots(p) {
		return append([]string{name}, searched...)
	}
	return append(searched, name)
}

// ndots is the pod's ndots option, 1 (the resolver's default) without one.
func ndots(p *corev1.Pod) int {
	for _, o := range p.Spec.DNSConfig.Options {
		if o.Name == "ndots" && o.Value != nil {
			if n, err := strconv.Atoi(*o.Value); err == nil {
				return n
			}
		}
	}
	return 1
}

// usesClusterDNS follows the pod's dnsPolicy: ClusterFirst (the default)
// uses the cluster DNS unless the pod is on the host network; a None pod
// uses it when its nameservers include the cluster DNS Service.
func (c *Checker) usesClusterDNS(p *corev1.Pod) bool {
	switch p.Spec.DNSPolicy {
	case corev1.DNSNone:
		if p.Spec.DNSConfig == nil {
			return false
		}
		dnsIP := c.m.Cluster.DNSServiceIP.String()
		for _, ns := range p.Spec.DNSConfig.Nameservers {
			if ns == dnsIP {
				return true
			}
		}
		return false
	case corev1.DNSDefault:
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
