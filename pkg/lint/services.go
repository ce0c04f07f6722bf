package lint

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/lint/load"
	"github.com/winkube/winkube/pkg/windows"
)

// service is a decoded Service.
type service struct {
	object
	svc corev1.Service
}

func decodeService(src *load.Object) (*service, error) {
	s := &service{object: newObject(src)}
	if err := fromUnstructured(src.Obj, &s.svc); err != nil {
		return nil, fmt.Errorf("decoding Service %s: %w", s.name, err)
	}
	return s, nil
}

// backends are the workloads of the input a Service selects.
type backends struct {
	pods    []*podInfo
	count   int
	windows bool
	// winNodes are the Windows nodes the Windows backends can land on.
	winNodes []*Node
}

// backendsOf matches the Service's selector against the pod labels of the
// workloads in its namespace and counts their replicas; a DaemonSet counts
// one pod per node it reaches.
func (r *run) backendsOf(s *service) backends {
	var b backends
	if len(s.svc.Spec.Selector) == 0 {
		return b
	}
	sel := labels.SelectorFromSet(s.svc.Spec.Selector)
	seen := map[*Node]bool{}
	for _, p := range r.pods {
		if p.w.namespace != s.namespace || !sel.Matches(labels.Set(p.w.labels)) {
			continue
		}
		b.pods = append(b.pods, p)
		if p.w.perNode {
			b.count += len(p.reachable)
		} else {
			b.count += p.w.replicas
		}
		if !p.isWindows() {
			continue
		}
		b.windows = true
		for _, n := range p.reachable {
			if n.IsWindows() && !seen[n] {
				seen[n] = true
				b.winNodes = append(b.winNodes, n)
			}
		}
	}
	return b
}

// checkService runs the Service rules that matter on Windows nodes.
func (r *run) checkService(s *service) {
	if !r.target.HasWindows() {
		return
	}
	b := r.backendsOf(s)
	r.checkBackendLimit(s, b)
	if !b.windows {
		return
	}
	r.checkTrafficPolicy(s, b)
	r.checkSessionAffinity(s, b)
	r.checkIPFamilies(s)
}

// checkBackendLimit is LIM-11. Every Windows node's kube-proxy programs
// every Service, so the limit matters even for Linux backends.
func (r *run) checkBackendLimit(s *service, b backends) {
	limit := serviceBackendLimit(r.target.Minor)
	if b.count <= limit {
		return
	}
	sev := SeverityWarning
	if b.windows {
		sev = SeverityError
	}
	r.report(&s.object, "LIM-11", sev,
		fmt.Sprintf("spec.selector matches %d backend pods in the input; Windows nodes of Kubernetes 1.%d support at most %d per Service", b.count, r.target.Minor, limit),
		fmt.Sprintf("lower the replicas of the selected workloads to %d or split them across Services with narrower spec.selector", limit))
}

// serviceBackendLimit is the LIM-11 limit: 64 in the seed era (through
// 1.23), 1024 in later upstream docs. pkg/windows is meant to own this as
// ServiceBackendLimit; the linter keeps its own copy until it does.
func serviceBackendLimit(minor int) int {
	if minor <= 23 {
		return 64
	}
	return 1024
}

// checkTrafficPolicy is LIM-12 and the client-IP-preservation row of KP-5.
func (r *run) checkTrafficPolicy(s *service, b backends) {
	if s.svc.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyLocal {
		return
	}
	path := field.NewPath("spec", "externalTrafficPolicy")
	switch {
	case !r.target.DSRKnown:
		r.report(&s.object, "LIM-12", SeverityWarning,
			fmt.Sprintf("%s: Local works on Windows nodes only when kube-proxy runs with --enable-dsr", path),
			fmt.Sprintf("make sure kube-proxy on the Windows nodes runs with --enable-dsr, or set %s: Cluster", path))
	case !r.target.DSR:
		r.report(&s.object, "LIM-12", SeverityError,
			fmt.Sprintf("%s: Local is unsupported on the Windows nodes of cluster %s: kube-proxy runs without DSR (--enable-dsr)", path, r.target.Name),
			fmt.Sprintf("set %s: Cluster, or enable DSR (network.enableDSR: true in the cluster config)", path))
	default:
		old := nodesBefore(b.winNodes, windows.Build2019)
		if len(old) > 0 {
			r.report(&s.object, "KP-5", SeverityWarning,
				fmt.Sprintf("%s: client IP preservation needs Windows Server 2019 or newer; %s fall back silently", path, describeNodes(old)),
				"run the backends on Windows Server 2019 or newer nodes (node.kubernetes.io/windows-build)")
		}
	}
}

// checkSessionAffinity is the session-affinity row of KP-5 and LIM-10.
func (r *run) checkSessionAffinity(s *service, b backends) {
	if s.svc.Spec.SessionAffinity != corev1.ServiceAffinityClientIP {
		return
	}
	path := field.NewPath("spec", "sessionAffinity")
	if old := nodesBefore(b.winNodes, windows.Build2022); len(old) > 0 {
		r.report(&s.object, "KP-5", SeverityWarning,
			fmt.Sprintf("%s: ClientIP needs Windows Server 2022 or newer; kube-proxy on %s ignores it", path, describeNodes(old)),
			"select Windows Server 2022 or newer nodes for the backends (node.kubernetes.io/windows-build: \"10.0.20348\"), or drop spec.sessionAffinity")
	}
	cfg := s.svc.Spec.SessionAffinityConfig
	if cfg != nil && cfg.ClientIP != nil && cfg.ClientIP.TimeoutSeconds != nil {
		tpath := field.NewPath("spec", "sessionAffinityConfig", "clientIP", "timeoutSeconds")
		r.report(&s.object, "LIM-10", SeverityWarning,
			fmt.Sprintf("%s: the affinity timeout is not honoured on Windows nodes", tpath),
			fmt.Sprintf("remove %s; Windows keeps affinity without a timeout", tpath))
	}
}

// nodesBefore returns the nodes older than build.
func nodesBefore(nodes []*Node, build int) []*Node {
	var out []*Node
	for _, n := range nodes {
		if !n.Build.IsZero() && n.Build.Build < build {
			out = append(out, n)
		}
	}
	return out
}

// checkIPFamilies is LIM-13: IPv6 needs l2bridge, and Windows never runs
// IPv6-only.
func (r *run) checkIPFamilies(s *service) {
	v6, v4 := serviceFamilies(&s.svc)
	if !v6 {
		return
	}
	switch {
	case !v4:
		r.report(&s.object, "LIM-13", SeverityError,
			"spec.ipFamilies: IPv6-only single-stack Services are unsupported on Windows nodes",
			"set spec.ipFamilies: [IPv4] (or dual-stack on an l2bridge network)")
	case r.target.NetworkMode == "overlay":
		r.report(&s.object, "LIM-13", SeverityError,
			fmt.Sprintf("spec.ipFamilyPolicy: IPv6 is unsupported on the overlay (VXLAN) network of cluster %s; dual-stack needs l2bridge", r.target.Name),
			"set spec.ipFamilyPolicy: SingleStack with spec.ipFamilies: [IPv4], or use an l2bridge network")
	}
}

// serviceFamilies reports which IP families the Service asks for.
func serviceFamilies(s *corev1.Service) (v6, v4 bool) {
	for _, f := range s.Spec.IPFamilies {
		v6 = v6 || f == corev1.IPv6Protocol
		v4 = v4 || f == corev1.IPv4Protocol
	}
	for _, ip := range append([]string{s.Spec.ClusterIP}, s.Spec.ClusterIPs...) {
		if ip != "" && ip != corev1.ClusterIPNone {
			v6 = v6 || strings.Contains(ip, ":")
			v4 = v4 || strings.Contains(ip, ".")
		}
	}
	if p := s.Spec.IPFamilyPolicy; p != nil && (*p == corev1.IPFamilyPolicyRequireDualStack || *p == corev1.IPFamilyPolicyPreferDualStack) {
		v6, v4 = true, true
	}
	if !v6 && !v4 {
		v4 = true
	}
	return v6, v4
}
