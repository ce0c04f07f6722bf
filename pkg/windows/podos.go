package windows

import corev1 "k8s.io/api/core/v1"

// SelectedOS is the OS a pod spec's scheduling fields pin (SCH-1, SCH-5):
// the kubernetes.io/os node selector (or the beta one), a windows-build
// selector (Windows), else the OS every required node affinity term
// pins. It is "" when they pin none. spec.os is not a selector (SCH-2).
func SelectedOS(spec *corev1.PodSpec) string {
	if spec == nil {
		return ""
	}
	for _, k := range []string{LabelOS, LabelOSBeta} {
		if v, ok := spec.NodeSelector[k]; ok {
			return v
		}
	}
	if _, ok := spec.NodeSelector[LabelWindowsBuild]; ok {
		return "windows"
	}
	return AffinityOS(spec.Affinity)
}

// AffinityOS is the OS every required node affinity term pins (an OS
// label In one value, or any windows-build In or Exists), "" when they do
// not all pin the same one.
func AffinityOS(a *corev1.Affinity) string {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	os := ""
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		termOS := ""
		for _, req := range term.MatchExpressions {
			switch {
			case (req.Key == LabelOS || req.Key == LabelOSBeta) && req.Operator == corev1.NodeSelectorOpIn && len(req.Values) == 1:
				termOS = req.Values[0]
			case req.Key == LabelWindowsBuild && (req.Operator == corev1.NodeSelectorOpIn || req.Operator == corev1.NodeSelectorOpExists):
				termOS = "windows"
			}
		}
		if termOS == "" || (os != "" && os != termOS) {
			return ""
		}
		os = termOS
	}
	return os
}
