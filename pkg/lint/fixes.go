package lint

import (
	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/winkube/winkube/pkg/windows"
)

// proposeEdit records the smallest --fix edit that places the workload on
// nodes where all its images run: spec.os, a nodeSelector on the OS (and
// the Windows build when only some builds run the image) and tolerations
// for those nodes' taints. It proposes nothing it cannot verify: the edited
// pod must reach at least one node and only good ones.
func (r *run) proposeEdit(p *podInfo) {
	if !p.w.src.Fixable || p.os == "" || p.mixedImages {
		return
	}
	good := r.goodNodes(p)
	if len(good) == 0 {
		return
	}
	sel := map[string]string{corev1.LabelOSStable: p.os}
	if _, ok := p.w.spec.NodeSelector[labelBetaOS]; ok {
		sel[labelBetaOS] = p.os
	}
	if b := commonBuild(good, r.target.Nodes); b != "" {
		sel[corev1.LabelWindowsBuild] = b
	}
	// fix.Apply only adds missing keys, so a selector key already set to
	// another value cannot be fixed here; the user must choose.
	for k, v := range sel {
		if have, ok := p.w.spec.NodeSelector[k]; ok {
			if have != v {
				return
			}
			delete(sel, k)
		}
	}
	if r.conflictsWithRuntimeClass(p, sel) {
		return
	}
	edited := p.sched
	edited.NodeSelector = copyMap(p.sched.NodeSelector)
	if edited.NodeSelector == nil {
		edited.NodeSelector = map[string]string{}
	}
	for k, v := range sel {
		edited.NodeSelector[k] = v
	}
	tolerations := missingTolerations(&edited, r.target.Nodes)
	edited.Tolerations = append(append([]corev1.Toleration(nil), edited.Tolerations...), tolerations...)
	if !r.placesOnlyOn(&edited, good) {
		return
	}
	// A List item's pod spec is found through the item's place in the
	// document (items, 2, spec, template, spec).
	podSpec := append(splitPath(p.w.src.Root), p.w.specPath...)
	e := Edit{File: p.w.src.File, Doc: p.w.src.Doc, PodSpec: podSpec, NodeSelector: sel, Tolerations: tolerations}
	if p.w.spec.OS == nil && osFieldAllowed(p, r.target.Minor) {
		e.OS = p.os
	}
	if len(e.NodeSelector) == 0 && len(e.Tolerations) == 0 && e.OS == "" {
		return
	}
	r.edits = append(r.edits, e)
}

// goodNodes are the nodes of the pod's OS that run every image.
func (r *run) goodNodes(p *podInfo) []*Node {
	var out []*Node
	for _, n := range r.nodesFor(p, nil) {
		if n.OS == p.os {
			out = append(out, n)
		}
	}
	return out
}

// conflictsWithRuntimeClass reports whether the new selector contradicts
// the RuntimeClass's, which admission would reject (SCH-4).
func (r *run) conflictsWithRuntimeClass(p *podInfo, sel map[string]string) bool {
	if p.rc == nil || p.rc.Scheduling == nil {
		return false
	}
	for k, v := range sel {
		if rv, ok := p.rc.Scheduling.NodeSelector[k]; ok && rv != v {
			return true
		}
	}
	return false
}

// missingTolerations returns Equal tolerations for the NoSchedule and
// NoExecute taints of the nodes the selector matches that the spec does
// not tolerate yet.
func missingTolerations(spec *corev1.PodSpec, nodes []*Node) []corev1.Toleration {
	var out []corev1.Toleration
	seen := map[string]bool{}
	probe := *spec
	probe.Tolerations = nil
	matched, _ := (&Target{Nodes: nodes}).reachable(&probe)
	for _, n := range matched {
		for _, t := range n.Obj.Spec.Taints {
			if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
				continue
			}
			if tolerated(spec.Tolerations, &t) || seen[t.ToString()] {
				continue
			}
			seen[t.ToString()] = true
			op := corev1.TolerationOpEqual
			if t.Value == "" {
				op = corev1.TolerationOpExists
			}
			out = append(out, corev1.Toleration{Key: t.Key, Operator: op, Value: t.Value, Effect: t.Effect})
		}
	}
	return out
}

func tolerated(ts []corev1.Toleration, taint *corev1.Taint) bool {
	return corev1helpers.TolerationsTolerateTaint(klog.Background(), ts, taint, true)
}

// placesOnlyOn reports whether the spec reaches some nodes and only good ones.
func (r *run) placesOnlyOn(spec *corev1.PodSpec, good []*Node) bool {
	ok := map[*Node]bool{}
	for _, n := range good {
		ok[n] = true
	}
	_, reachable := r.target.reachable(spec)
	if len(reachable) == 0 {
		return false
	}
	for _, n := range reachable {
		if !ok[n] {
			return false
		}
	}
	return true
}

// osFieldAllowed reports whether setting spec.os keeps the pod valid: the
// cluster knows the field and no API-2/3/4 rule would then reject the pod.
func osFieldAllowed(p *podInfo, minor int) bool {
	if !windows.OSFieldEnforced(minor) {
		return false
	}
	probe := *p.w.spec
	probe.OS = &corev1.PodOS{Name: corev1.OSName(p.os)}
	if p.os == "windows" {
		return len(windows.ValidateWindowsPod(&probe, p.w.path)) == 0
	}
	return len(windows.ValidateLinuxPod(&probe, p.w.path)) == 0
}
