package doctor

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network/dns"
	"github.com/winkube/winkube/pkg/rules"
)

// podText is one string a pod's programs read: an env value, a command
// line, a probe.
type podText struct {
	where, text string
}

// texts lists what a pod's containers run and read: command and args,
// env values, exec probes and HTTP probe hosts.
func texts(spec *corev1.PodSpec) []podText {
	var out []podText
	for _, c := range containers(spec) {
		if cmd := strings.Join(append(append([]string{}, c.Command...), c.Args...), " "); cmd != "" {
			out = append(out, podText{"container " + c.Name + " command", cmd})
		}
		for _, e := range c.Env {
			if e.Value != "" {
				out = append(out, podText{"container " + c.Name + " env " + e.Name, e.Value})
			}
		}
		for name, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe, "startup": c.StartupProbe} {
			if p != nil && p.Exec != nil {
				out = append(out, podText{"container " + c.Name + " " + name + " probe", strings.Join(p.Exec.Command, " ")})
			}
		}
	}
	return out
}

// words splits text into host-name-like words: URLs, host:port and
// command lines give their names.
func words(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_')
	})
}

// checkDNSNames: TS-12, a Windows pod that names a Service in partly
// qualified form with a dot ("web.shop", "kubernetes.default.svc"): a
// Linux resolver completes it from the search list, a Windows one takes
// it as fully qualified and fails (DNS-1). pkg/network/dns decides both.
func checkDNSNames(a *audit) []Finding {
	services := map[string]bool{}
	for _, s := range a.s.Services {
		services[s.Name+"."+s.Namespace+".svc."+a.domain()] = true
	}
	groups := newPodGroups()
	for _, p := range a.s.Pods {
		if !a.isWindowsPod(p) {
			continue
		}
		for _, t := range texts(&p.Spec) {
			for _, w := range words(t.text) {
				if _, ok := a.pqdn(w, p.Namespace, services); ok {
					groups.add(p, t, w)
				}
			}
		}
	}
	var out []Finding
	for _, g := range groups.list {
		fqdn, _ := a.pqdn(g.cause, g.workload.Namespace, services)
		out = append(out, dnsFinding(g, fqdn))
	}
	return out
}

func (a *audit) domain() string {
	if d := a.model.Cluster.ClusterDomain; d != "" {
		return d
	}
	return dns.DefaultClusterDomain
}

// pqdn reports whether name resolves to a Service on Linux but not on
// Windows, and the Service's FQDN.
func (a *audit) pqdn(name, ns string, services map[string]bool) (string, bool) {
	name = strings.ToLower(strings.Trim(name, ".-"))
	if !strings.Contains(name, ".") {
		return "", false
	}
	for _, c := range dns.Candidates(name, ns, "windows", a.domain()) {
		if services[c] {
			return "", false
		}
	}
	for _, c := range dns.Candidates(name, ns, "linux", a.domain()) {
		if services[c] {
			return c, true
		}
	}
	return "", false
}

// dnsFinding: one TS-12 per workload and name.
func dnsFinding(g *podGroup, fqdn string) Finding {
	short := strings.SplitN(fqdn, ".", 2)[0]
	return Finding{
		Finding: rules.New("TS-12", "", fmt.Sprintf("%s names Service %s as %q: Windows resolves a name with a dot only as written, so it does not find %s", g.subject("Windows pod"), fqdn, g.cause, fqdn)).
			WithFix(fmt.Sprintf("write the full name %s (or %s from namespace %s itself)", fqdn, short, strings.Split(fqdn, ".")[1])),
		Objects:  g.objects(),
		Evidence: g.evidence(),
	}
}

// checkHostNetworkProbes: TS-4 and TS-9, a host-network pod on a Windows
// node (HostProcess) that reaches its own node's NodePort or a Service's
// cluster IP: both fail from the Windows node itself (LIM-16).
func checkHostNetworkProbes(a *audit) []Finding {
	clusterIPs, nodePorts := map[string]string{}, map[int32]string{}
	for _, s := range a.s.Services {
		if s.Spec.ClusterIP != "" && s.Spec.ClusterIP != corev1.ClusterIPNone {
			clusterIPs[s.Spec.ClusterIP] = s.Namespace + "/" + s.Name
		}
		for _, port := range s.Spec.Ports {
			if port.NodePort != 0 {
				nodePorts[port.NodePort] = s.Namespace + "/" + s.Name
			}
		}
	}
	var out []Finding
	for _, p := range a.s.Pods {
		n := a.nodes[p.Spec.NodeName]
		if !p.Spec.HostNetwork || !isWindowsNode(n) {
			continue
		}
		for _, t := range append(texts(&p.Spec), probeTargets(&p.Spec)...) {
			for _, w := range words(t.text) {
				if svc, ok := clusterIPs[w]; ok {
					out = append(out, lim16(p, t, "TS-9", fmt.Sprintf("the cluster IP %s of Service %s", w, svc)))
				}
			}
			if port, svc, ok := ownNodePort(t.text, n, nodePorts); ok {
				out = append(out, lim16(p, t, "TS-4", fmt.Sprintf("its own node's NodePort %d of Service %s", port, svc)))
			}
		}
	}
	return out
}

// probeTargets renders HTTP and TCP probes as "host:port" (host empty →
// the pod IP, which is the node's on a host-network pod).
func probeTargets(spec *corev1.PodSpec) []podText {
	var out []podText
	for _, c := range containers(spec) {
		for name, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe, "startup": c.StartupProbe} {
			switch {
			case p == nil:
			case p.HTTPGet != nil:
				out = append(out, podText{"container " + c.Name + " " + name + " probe", orNode(p.HTTPGet.Host) + ":" + p.HTTPGet.Port.String()})
			case p.TCPSocket != nil:
				out = append(out, podText{"container " + c.Name + " " + name + " probe", orNode(p.TCPSocket.Host) + ":" + p.TCPSocket.Port.String()})
			}
		}
	}
	return out
}

func orNode(host string) string {
	if host == "" {
		return "localhost"
	}
	return host
}

// ownNodePort finds "host:port" where host is the node itself and port a
// NodePort.
func ownNodePort(text string, n *corev1.Node, nodePorts map[int32]string) (int32, string, bool) {
	self := map[string]bool{"localhost": true, "127.0.0.1": true, n.Name: true}
	for _, addr := range n.Status.Addresses {
		self[addr.Address] = true
	}
	for _, w := range strings.Fields(text) {
		w = strings.TrimPrefix(strings.TrimPrefix(w, "http://"), "https://")
		host, port, ok := strings.Cut(strings.SplitN(w, "/", 2)[0], ":")
		if !ok || !self[host] {
			continue
		}
		if v, err := strconv.Atoi(port); err == nil {
			if svc, found := nodePorts[int32(v)]; found {
				return int32(v), svc, true
			}
		}
	}
	return 0, "", false
}

func lim16(p *corev1.Pod, t podText, rule, target string) Finding {
	return Finding{
		Finding: rules.New(rule, "", fmt.Sprintf("host-network pod %s/%s on Windows node %s reaches %s: from a Windows node itself that fails, while pods on the pod network reach it", p.Namespace, p.Name, p.Spec.NodeName, target)).
			WithFix("reach the backends through their pod IPs or from a pod on the pod network; check the NodePort from another node"),
		Objects:  []Object{podObject(p), nodeObject(p.Spec.NodeName)},
		Evidence: t.where + ": " + t.text,
	}
}
