package lint

import (
	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

// checkLimits reports the Windows limitations no API server enforces
// (LIM-2..9, 14, 15, 17..20, from pkg/windows) for pods that run Windows
// containers. The runtime-dependent rules (LIM-7, LIM-14) use Docker when
// any Windows node the pod can land on runs Docker.
func (r *run) checkLimits(p *podInfo) {
	if !p.isWindows() {
		return
	}
	runtime := windows.RuntimeContainerd
	if r.dockerReachable(p) {
		runtime = windows.RuntimeDocker
	}
	for _, v := range windows.PodLimitationsAt(p.w.spec, runtime, p.w.path) {
		// With spec.os set to windows, API-3 already rejects privileged.
		if v.Rule == "LIM-15" && p.w.spec.OS != nil {
			continue
		}
		r.reportViolation(&p.w.object, v)
	}
}

// reportViolation turns a rule-book violation into a finding whose message
// starts with the field to change.
func (r *run) reportViolation(o *object, v windows.Violation) {
	msg := v.Message
	if v.Path != "" {
		msg = v.Path + ": " + msg
	}
	r.report(o, v.Rule, severityOf(v.Severity), msg, v.Fix)
}

func severityOf(s windows.Severity) rules.Severity {
	switch s {
	case windows.SeverityError:
		return rules.SeverityError
	case windows.SeverityWarning:
		return rules.SeverityWarning
	}
	return rules.SeverityInfo
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
