package proxy

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network/hns"
	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

// defaultAffinityTimeout is the API's default for
// sessionAffinityConfig.clientIP.timeoutSeconds (3 hours).
const defaultAffinityTimeout = 10800

// svcOptions is what winkernel decides once per Service: its addresses
// and the flags the node's build allows.
type svcOptions struct {
	name        string // namespace/name
	clusterIP   netip.Addr
	externalIPs []netip.Addr
	ingressIPs  []netip.Addr
	// internalLocal: internalTrafficPolicy Local (KP-6).
	internalLocal bool
	// localTrafficDSR: externalTrafficPolicy Local on a build with DSR.
	localTrafficDSR bool
	// preserveDIP: the preserve-destination annotation, where supported.
	preserveDIP  bool
	distribution string
}

// options reads a Service the way winkernel's newServiceInfo does; ok is
// false for Services kube-proxy skips (headless, ExternalName, no IPv4
// cluster IP on this IPv4 proxier).
func (p *Proxier) options(svc *corev1.Service, st *serviceState) (svcOptions, bool) {
	o := svcOptions{name: svc.Namespace + "/" + svc.Name, distribution: hns.DistributionNone}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return o, false
	}
	ip, ok := clusterIPv4(&svc.Spec)
	if !ok {
		if hasIPv6ClusterIP(&svc.Spec) {
			st.add("LIM-13", "Service %s has no IPv4 cluster IP: IPv6-only Services are not supported on Windows, kube-proxy programs nothing for it", o.name)
		}
		return o, false
	}
	o.clusterIP = ip
	p.dualStack(svc, &o, st)
	o.externalIPs = ipv4s(svc.Spec.ExternalIPs)
	o.ingressIPs = ingressIPv4s(svc.Status.LoadBalancer.Ingress)
	o.internalLocal = svc.Spec.InternalTrafficPolicy != nil && *svc.Spec.InternalTrafficPolicy == corev1.ServiceInternalTrafficPolicyLocal
	p.trafficPolicy(svc, &o, st)
	p.preserveDestination(svc, &o, st)
	p.affinity(svc, &o, st)
	return o, true
}

// trafficPolicy: externalTrafficPolicy Local is carried out with DSR on
// the external load balancers, which needs a build whose HNS supports DSR
// (LIM-12). winkernel asks HNS, not --enable-dsr, so it also applies when
// the flag is off; the documentation calls that combination unsupported.
func (p *Proxier) trafficPolicy(svc *corev1.Service, o *svcOptions, st *serviceState) {
	if svc.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyLocal {
		return
	}
	switch {
	case !windows.Supports(windows.DSR, p.cfg.Build):
		st.add("LIM-12", "Service %s has externalTrafficPolicy Local, but Windows build %s has no DSR: kube-proxy ignores the policy, sends NodePort and external traffic to every endpoint and the client IP is not preserved", o.name, p.cfg.Build.Label())
	case !p.cfg.EnableDSR:
		o.localTrafficDSR = true
		st.add("LIM-12", "Service %s has externalTrafficPolicy Local but kube-proxy runs without --enable-dsr, which the documentation calls unsupported; winkernel still programs its NodePort and external load balancers with DSR and local endpoints only", o.name)
	default:
		o.localTrafficDSR = true
	}
}

// preserveDestination: the preserve-destination annotation needs DSR and
// build 1903 or later (KP-5); elsewhere kube-proxy drops it.
func (p *Proxier) preserveDestination(svc *corev1.Service, o *svcOptions, st *serviceState) {
	if svc.Annotations["preserve-destination"] != "true" {
		return
	}
	if windows.Supports(windows.DSR, p.cfg.Build) && windows.Supports(windows.PreserveDestination, p.cfg.Build) {
		o.preserveDIP = true
		return
	}
	st.add("KP-5", "Service %s asks for preserve-destination, which needs Windows Server 1903 or later with DSR; build %s ignores it", o.name, p.cfg.Build.Label())
}

// affinity: sessionAffinity ClientIP becomes source-IP distribution on
// builds that support it (KP-5); the timeout is never honoured (LIM-10).
func (p *Proxier) affinity(svc *corev1.Service, o *svcOptions, st *serviceState) {
	if svc.Spec.SessionAffinity != corev1.ServiceAffinityClientIP {
		return
	}
	if c := svc.Spec.SessionAffinityConfig; c != nil && c.ClientIP != nil && c.ClientIP.TimeoutSeconds != nil && *c.ClientIP.TimeoutSeconds != defaultAffinityTimeout {
		st.add("LIM-10", "Service %s sets a session affinity timeout of %ds, which Windows does not honour", o.name, *c.ClientIP.TimeoutSeconds)
	}
	if !windows.Supports(windows.SessionAffinity, p.cfg.Build) {
		st.add("KP-5", "Service %s uses sessionAffinity ClientIP, which needs Windows Server 2022; build %s load-balances without affinity", o.name, p.cfg.Build.Label())
		return
	}
	o.distribution = hns.DistributionSourceIP
}

// dualStack: a dual-stack Service keeps only its IPv4 half here. IPv6
// needs l2bridge (LIM-13) and a build with dual-stack (KP-5).
func (p *Proxier) dualStack(svc *corev1.Service, o *svcOptions, st *serviceState) {
	switch {
	case !hasIPv6ClusterIP(&svc.Spec):
	case p.cfg.Overlay:
		st.add("LIM-13", "Service %s is dual-stack, but IPv6 is not supported on overlay (VXLAN) networks: only its IPv4 address is load-balanced on this node", o.name)
	case !windows.Supports(windows.DualStack, p.cfg.Build):
		st.add("KP-5", "Service %s is dual-stack, which needs Windows Server 2019 or later; build %s load-balances its IPv4 address only", o.name, p.cfg.Build.Label())
	}
}

func (st *serviceState) add(rule, format string, args ...any) {
	st.addFinding(rules.New(rule, "", fmt.Sprintf(format, args...)))
}

func (st *serviceState) addFinding(f rules.Finding) {
	st.findings = append(st.findings, f)
}

// clusterIPv4 is the Service's IPv4 cluster IP, if any.
func clusterIPv4(spec *corev1.ServiceSpec) (netip.Addr, bool) {
	ips := spec.ClusterIPs
	if len(ips) == 0 && spec.ClusterIP != "" {
		ips = []string{spec.ClusterIP}
	}
	for _, s := range ips {
		if ip, err := netip.ParseAddr(s); err == nil && ip.Is4() {
			return ip, true
		}
	}
	return netip.Addr{}, false
}

func hasIPv6ClusterIP(spec *corev1.ServiceSpec) bool {
	for _, s := range append([]string{spec.ClusterIP}, spec.ClusterIPs...) {
		if ip, err := netip.ParseAddr(s); err == nil && ip.Is6() {
			return true
		}
	}
	return false
}

func ipv4s(list []string) []netip.Addr {
	var out []netip.Addr
	for _, s := range list {
		if ip, err := netip.ParseAddr(s); err == nil && ip.Is4() {
			out = append(out, ip)
		}
	}
	return out
}

// ingressIPv4s are the load balancer addresses kube-proxy serves; an
// ingress in ipMode Proxy is the cloud load balancer's job, not the node's.
func ingressIPv4s(list []corev1.LoadBalancerIngress) []netip.Addr {
	var ips []string
	for _, in := range list {
		if in.IPMode != nil && *in.IPMode == corev1.LoadBalancerIPModeProxy {
			continue
		}
		ips = append(ips, in.IP)
	}
	return ipv4s(ips)
}
