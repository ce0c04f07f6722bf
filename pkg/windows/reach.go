package windows

import (
	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// Reach is where a pod's scheduling fields (nodeName, nodeSelector,
// required node affinity, tolerations) let the scheduler put it, by index
// into nodes: Matched are the nodes whose labels the pod selects (SCH-1
// when none), Reachable those of them whose NoSchedule and NoExecute
// taints it tolerates (SCH-3 when none). It uses upstream's scheduling
// helpers, so lint and the webhook see the nodes the scheduler sees.
func Reach(spec *corev1.PodSpec, nodes []*corev1.Node) (matched, reachable []int) {
	matched = Selected(spec, nodes)
	for _, i := range matched {
		if _, untolerated := UntoleratedTaint(nodes[i], spec.Tolerations); !untolerated {
			reachable = append(reachable, i)
		}
	}
	return matched, reachable
}

// Selected is Reach's Matched alone, for callers that add tolerations
// themselves (the webhook).
func Selected(spec *corev1.PodSpec, nodes []*corev1.Node) []int {
	matched := make([]int, 0, len(nodes))
	affinity := nodeaffinity.GetRequiredNodeAffinity(&corev1.Pod{Spec: corev1.PodSpec{NodeSelector: spec.NodeSelector, Affinity: spec.Affinity}})
	for i, n := range nodes {
		if spec.NodeName != "" && spec.NodeName != n.Name {
			continue
		}
		if ok, err := affinity.Match(n); err != nil || !ok {
			continue
		}
		matched = append(matched, i)
	}
	return matched
}

// UntoleratedTaint finds a NoSchedule or NoExecute taint of the node the
// tolerations miss; PreferNoSchedule never keeps a pod off a node.
func UntoleratedTaint(n *corev1.Node, tolerations []corev1.Toleration) (corev1.Taint, bool) {
	return corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), n.Spec.Taints, tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, true)
}

// PinnedBuilds are the windows-build label values a pod's scheduling
// fields allow: the nodeSelector's value, or the values of a required node
// affinity whose every term names some with In. Nil when they allow every
// build. fromSelector tells which of the two pinned them.
func PinnedBuilds(spec *corev1.PodSpec) (builds []string, fromSelector bool) {
	if v, ok := spec.NodeSelector[LabelWindowsBuild]; ok {
		return []string{v}, true
	}
	a := spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil, false
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		var values []string
		for _, req := range term.MatchExpressions {
			if req.Key == LabelWindowsBuild && req.Operator == corev1.NodeSelectorOpIn {
				values = req.Values
			}
		}
		if values == nil {
			return nil, false
		}
		builds = append(builds, values...)
	}
	return builds, false
}

// OnPinnedBuilds is the verdict on an image for a pod that pins Windows
// builds: it runs when it runs on one of them (on containerd, winkube's
// runtime: the nodes are not known here). A value that is no build label
// judges nothing (the scheduler matches no node: SCH-1), so the image
// runs as far as the pins go.
func OnPinnedBuilds(builds []string, onHost func(Host) Verdict) Verdict {
	first := Verdict{Runs: true}
	for _, v := range builds {
		b, err := ParseBuild(v)
		if err != nil {
			return Verdict{Runs: true}
		}
		verdict := onHost(Host{OS: "windows", Arch: "amd64", Build: b, Runtime: RuntimeContainerd})
		if verdict.Runs {
			return verdict
		}
		if first.Runs {
			first = verdict
		}
	}
	return first
}
