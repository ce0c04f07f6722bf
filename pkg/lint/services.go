package lint

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/winkube/winkube/pkg/manifest"
	"github.com/winkube/winkube/pkg/windows"
	winservice "github.com/winkube/winkube/pkg/windows/service"
)

// service is a decoded Service.
type service struct {
	object
	svc corev1.Service
}

func decodeService(src *manifest.Object) (*service, error) {
	s := &service{object: newObject(src)}
	if err := s.convert(src.Obj, &s.svc); err != nil {
		return nil, fmt.Errorf("decoding Service %s: %w", s.name, err)
	}
	return s, nil
}

// backends are the workloads of the input a Service selects.
type backends struct {
	count   int
	windows bool
	// builds are the Windows builds of the nodes the Windows backends can
	// land on, oldest first; nodes are those nodes (KP-7).
	builds []windows.Build
	nodes  []winservice.BackendNode
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
	seen := map[windows.Build]bool{}
	for _, p := range r.candidates(s.namespace, s.svc.Spec.Selector) {
		if !sel.Matches(labels.Set(p.w.labels)) {
			continue
		}
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
			if !n.IsWindows() {
				continue
			}
			b.nodes = append(b.nodes, winservice.BackendNode{Name: n.Name, Build: n.Build, NetworkMode: r.target.NetworkMode})
			if bl := n.Build.WithoutRevision(); !bl.IsZero() && !seen[bl] {
				seen[bl] = true
				b.builds = append(b.builds, bl)
			}
		}
	}
	sort.Slice(b.builds, func(i, j int) bool { return b.builds[i].Compare(b.builds[j]) < 0 })
	return b
}

// podIndex finds workloads by namespace and one pod label, so matching
// Services to backends is not quadratic in large inputs.
type podIndex map[string]map[string][]*podInfo

func labelKey(k, v string) string { return k + "=" + v }

// candidates returns the workloads in namespace that carry the rarest of
// the selector's labels; the caller still matches the whole selector.
func (r *run) candidates(namespace string, selector map[string]string) []*podInfo {
	if r.index == nil {
		r.index = podIndex{}
		for _, p := range r.pods {
			byLabel := r.index[p.w.namespace]
			if byLabel == nil {
				byLabel = map[string][]*podInfo{}
				r.index[p.w.namespace] = byLabel
			}
			for k, v := range p.w.labels {
				byLabel[labelKey(k, v)] = append(byLabel[labelKey(k, v)], p)
			}
		}
	}
	var best []*podInfo
	first := true
	for k, v := range selector {
		list := r.index[namespace][labelKey(k, v)]
		if first || len(list) < len(best) {
			best, first = list, false
		}
	}
	return best
}

// checkService applies the rule book's Service rules (LIM-10..13, KP-5) to
// Services whose backends in the input run Windows containers, once per
// Windows build those backends can land on, and KP-7 over the nodes they
// can land on.
func (r *run) checkService(s *service) {
	b := r.backendsOf(s)
	if b.count == 0 {
		r.nodePortNotChecked(s)
	}
	if !b.windows {
		return
	}
	opts := winservice.Options{K8sMinor: r.target.Minor, DSR: r.target.DSR, NetworkMode: r.target.NetworkMode, Backends: b.count}
	builds := b.builds
	if len(builds) == 0 {
		builds = []windows.Build{{}} // no node known: skip the KP-5 build checks
	}
	seen := map[string]bool{}
	for _, build := range builds {
		opts.NodeBuild = build
		for _, v := range winservice.Limitations(&s.svc, opts) {
			key := v.Rule + v.Path + v.Message
			if seen[key] || skipServiceRule(v.Rule) {
				continue
			}
			seen[key] = true
			if v.Rule == "LIM-12" && !r.target.DSRKnown {
				r.report(&s.object, v.Rule, "dsr-unknown", v.Path, v.Message+" (the live cluster does not say whether it does)", v.Fix)
				continue
			}
			r.reportViolation(&s.object, v)
		}
	}
	if v := winservice.OverlayNodePortIssue(&s.svc.Spec, b.nodes, r.target.DSR); v != nil {
		r.reportViolation(&s.object, *v)
	}
}

// nodePortNotChecked says once that KP-7 could not be decided for a
// Service whose backends are not in the input, when the target has nodes
// it would apply to: where the pods run is unknown, so no verdict.
func (r *run) nodePortNotChecked(s *service) {
	var nodes []winservice.BackendNode
	for _, n := range r.target.Nodes {
		if n.IsWindows() {
			nodes = append(nodes, winservice.BackendNode{Name: n.Name, Build: n.Build, NetworkMode: r.target.NetworkMode})
		}
	}
	v := winservice.OverlayNodePortIssue(&s.svc.Spec, nodes, r.target.DSR)
	if v == nil || len(s.svc.Spec.Selector) == 0 {
		return
	}
	r.report(&s.object, "KP-7", "not-checked", v.Path,
		"not checked: the Service's backends are not in the input, so whether they run on the Windows Server 2022 overlay nodes, where NodePort traffic to them breaks unless externalTrafficPolicy is Local, is unknown",
		"lint the Service together with its workloads, or run winkube doctor on the live cluster")
}

// skipServiceRule drops LIM-16: a node reaching its own NodePort is not a
// property of the manifest.
func skipServiceRule(rule string) bool { return rule == "LIM-16" }
