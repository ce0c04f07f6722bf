package webhook

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// op is one RFC 6902 JSON Patch operation.
type op struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// pointerEscape escapes a map key for a JSON pointer (RFC 6901).
var pointerEscape = strings.NewReplacer("~", "~0", "/", "~1")

// addKey adds key to the map at path, creating the map when the pod has
// none (a patch into a missing map fails).
func addKey(ops []op, path string, exists bool, key, value string) []op {
	if !exists {
		return append(ops, op{Op: "add", Path: path, Value: map[string]string{key: value}})
	}
	return append(ops, op{Op: "add", Path: path + "/" + pointerEscape.Replace(key), Value: value})
}

// patch turns the placement into operations on pod. Only additions: every
// field the pod sets stays as it is; a required node-affinity term is
// ANDed into each of the pod's own terms (terms are ORed).
func (p *placement) patch(pod *corev1.Pod) []op {
	var ops []op
	if p.selectOS {
		ops = addKey(ops, "/spec/nodeSelector", pod.Spec.NodeSelector != nil, corev1.LabelOSStable, p.os)
	}
	if len(p.builds) > 0 {
		ops = append(ops, affinityOps(pod, p.builds)...)
	}
	if p.toleration != nil {
		if pod.Spec.Tolerations == nil {
			ops = append(ops, op{Op: "add", Path: "/spec/tolerations", Value: []corev1.Toleration{*p.toleration}})
		} else {
			ops = append(ops, op{Op: "add", Path: "/spec/tolerations/-", Value: *p.toleration})
		}
	}
	if p.specOS {
		ops = append(ops, op{Op: "add", Path: "/spec/os", Value: corev1.PodOS{Name: corev1.OSName(p.os)}})
	}
	if len(ops) == 0 {
		return nil
	}
	return addKey(ops, "/metadata/annotations", pod.Annotations != nil, PlacedByAnnotation, p.annotation())
}

// affinityOps require node.kubernetes.io/windows-build In builds.
func affinityOps(pod *corev1.Pod, builds []string) []op {
	req := corev1.NodeSelectorRequirement{Key: corev1.LabelWindowsBuild, Operator: corev1.NodeSelectorOpIn, Values: builds}
	term := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{req}}
	required := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}
	a := pod.Spec.Affinity
	switch {
	case a == nil:
		return []op{{Op: "add", Path: "/spec/affinity", Value: corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: required}}}}
	case a.NodeAffinity == nil:
		return []op{{Op: "add", Path: "/spec/affinity/nodeAffinity", Value: corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: required}}}
	case a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil:
		return []op{{Op: "add", Path: "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution", Value: required}}
	}
	const terms = "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms"
	existing := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(existing) == 0 {
		return []op{{Op: "add", Path: terms, Value: required.NodeSelectorTerms}}
	}
	var ops []op
	for i, t := range existing {
		at := terms + "/" + strconv.Itoa(i) + "/matchExpressions"
		if t.MatchExpressions == nil {
			ops = append(ops, op{Op: "add", Path: at, Value: []corev1.NodeSelectorRequirement{req}})
		} else {
			ops = append(ops, op{Op: "add", Path: at + "/-", Value: req})
		}
	}
	return ops
}
