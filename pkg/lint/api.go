package lint

import (
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

// checkPodRules reports the rule book's findings on the pod spec
// (windows.PodViolations): what the API server rejects (API-1..6) and,
// on clusters that do not enforce it, that spec.os is dropped (API-8);
// fields the cluster's version does not know (VER-2); and, for pods that
// run Windows containers, the limitations no API server enforces (LIM-*).
// Templates are checked too: the server rejects a Deployment whose
// template breaks the API rules, and clusters that do not enforce them
// accept the pods, which then fail or misbehave on the node. The
// runtime-dependent rules (LIM-7, LIM-14) use Docker when any Windows node
// the pod can land on runs Docker.
func (r *run) checkPodRules(p *podInfo) {
	t := windows.PodTarget{Minor: r.target.Minor, AllowPrivileged: r.target.AllowPrivileged,
		Windows: p.runsWindows(), Runtime: windows.RuntimeContainerd, Entrypoint: imageinfo.EntrypointOf}
	if r.dockerReachable(p) {
		t.Runtime = windows.RuntimeDocker
	}
	for _, v := range windows.PodViolations(p.w.spec, p.w.path, t) {
		r.reportViolation(&p.w.object, v)
	}
}

// runsWindows is the rule book's answer to which OS the pod runs
// (windows.PodOS), the one the webhook gets: a pod whose images mix OSes
// (LIM-1) is checked as the OS it pins.
func (p *podInfo) runsWindows() bool {
	imagesOS := ""
	if p.osFromImages {
		imagesOS = p.os
	}
	return windows.PodOS(p.w.spec, &p.sched, imagesOS, uniformOS(p.reachable)) == "windows"
}

// reportViolation turns a rule-book violation into a finding at its field.
// pkg/windows, the rule book's verdicts on a pod, gives its severity and
// fix; pkg/rules the rest.
func (r *run) reportViolation(o *object, v windows.Violation) {
	f := rules.New(v.Rule, "", v.Message).WithFix(v.Fix)
	f.Severity = v.Severity
	r.record(o, v.Path, f)
}

// dockerReachable reports whether the pod can land on a Windows node that
// runs Docker (KLT-10); when it can land nowhere, any Windows node counts.
func (r *run) dockerReachable(p *podInfo) bool {
	nodes := p.reachable
	if len(nodes) == 0 {
		nodes = r.target.Nodes
	}
	for _, n := range nodes {
		if n.IsWindows() && windows.IsDocker(n.Runtime) {
			return true
		}
	}
	return false
}
