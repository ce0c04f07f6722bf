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

// SpecOS is spec.os.name when it names an OS, "" when it is unset or
// invalid (API-1: the API server rejects the pod, so it pins nothing).
func SpecOS(spec *corev1.PodSpec) string {
	if spec == nil || spec.OS == nil {
		return ""
	}
	if n := spec.OS.Name; n == corev1.Linux || n == corev1.Windows {
		return string(n)
	}
	return ""
}

// PodOS is the OS a pod's containers run, which decides whether the LIM-*
// rules apply to it. lint and the webhook both ask here, so a pod is a
// Windows pod for both or for neither. It is the one OS its known images
// share (imagesOS, "" when they share none or both); else the OS the pod
// pins with spec.os.name or its scheduling (sched: its node selector and
// affinity with its RuntimeClass's merged in), so a pod whose images mix
// OSes (LIM-1) still gets the rules of the OS it asks for; else the OS of
// every node it can land on (nodesOS, "" when mixed or unknown).
func PodOS(spec, sched *corev1.PodSpec, imagesOS, nodesOS string) string {
	if imagesOS != "" {
		return imagesOS
	}
	if os := SpecOS(spec); os != "" {
		return os
	}
	if os := SelectedOS(sched); os != "" {
		return os
	}
	return nodesOS
}
