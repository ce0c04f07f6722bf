package webhook

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/windows"
)

// scheduling is the pod's own placement with its RuntimeClass merged in,
// as the RuntimeClass admission plugin merges it (SCH-4).
type scheduling struct {
	spec corev1.PodSpec // NodeName, NodeSelector, Affinity, Tolerations
	// fromClass names the nodeSelector keys the RuntimeClass set.
	fromClass map[string]string
	class     string
}

func (h *Handler) scheduling(pod *corev1.Pod) *scheduling {
	s := &scheduling{spec: corev1.PodSpec{
		NodeName:     pod.Spec.NodeName,
		NodeSelector: map[string]string{},
		Affinity:     pod.Spec.Affinity,
		Tolerations:  append([]corev1.Toleration(nil), pod.Spec.Tolerations...),
	}, fromClass: map[string]string{}}
	for k, v := range pod.Spec.NodeSelector {
		s.spec.NodeSelector[k] = v
	}
	if name := pod.Spec.RuntimeClassName; name != nil && *name != "" {
		s.class = *name
		if rc := h.cluster.runtimeClass(*name); rc != nil && rc.Scheduling != nil {
			for k, v := range rc.Scheduling.NodeSelector {
				if _, ok := s.spec.NodeSelector[k]; !ok {
					s.spec.NodeSelector[k] = v
					s.fromClass[k] = v
				}
			}
			s.spec.Tolerations = append(s.spec.Tolerations, rc.Scheduling.Tolerations...)
		}
	}
	return s
}

// selectorSource names where a nodeSelector key came from.
func (s *scheduling) selectorSource(key string) string {
	if _, ok := s.fromClass[key]; ok {
		return fmt.Sprintf("RuntimeClass %s scheduling.nodeSelector[%s]=%s", s.class, key, s.spec.NodeSelector[key])
	}
	return fmt.Sprintf("spec.nodeSelector[%s]=%s", key, s.spec.NodeSelector[key])
}

// constrained reports whether the pod narrows its nodes at all.
func (s *scheduling) constrained() bool {
	return s.spec.NodeName != "" || len(s.spec.NodeSelector) > 0 || requiredTerms(s.spec.Affinity) != nil
}

// osPin is one of the pod's own fields that pins an OS.
type osPin struct {
	source, os string
}

// osPins lists the fields that pin an OS: the OS and build selectors (the
// pod's or its RuntimeClass's), a required node affinity whose every term
// pins one OS, and spec.os.name.
func (s *scheduling) osPins(pod *corev1.Pod) []osPin {
	var pins []osPin
	for _, k := range []string{corev1.LabelOSStable, windows.LabelOSBeta} {
		if v, ok := s.spec.NodeSelector[k]; ok {
			pins = append(pins, osPin{s.selectorSource(k), v})
		}
	}
	if _, ok := s.spec.NodeSelector[corev1.LabelWindowsBuild]; ok {
		pins = append(pins, osPin{s.selectorSource(corev1.LabelWindowsBuild), "windows"})
	}
	if os := windows.AffinityOS(s.spec.Affinity); os != "" {
		pins = append(pins, osPin{"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", os})
	}
	if os := windows.SpecOS(&pod.Spec); os != "" {
		pins = append(pins, osPin{"spec.os.name=" + os, os})
	}
	return pins
}

func requiredTerms(a *corev1.Affinity) []corev1.NodeSelectorTerm {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
}

// pinnedBuilds are the windows-build values the pod allows
// (windows.PinnedBuilds) and the field that pins them.
func (s *scheduling) pinnedBuilds() (source string, builds []string) {
	builds, fromSelector := windows.PinnedBuilds(&s.spec)
	switch {
	case builds == nil:
		return "", nil
	case fromSelector:
		return s.selectorSource(corev1.LabelWindowsBuild), builds
	}
	return "spec.affinity node.kubernetes.io/windows-build In (" + strings.Join(builds, ", ") + ")", builds
}

func describeScheduling(s *scheduling) string {
	var parts []string
	if s.spec.NodeName != "" {
		parts = append(parts, "spec.nodeName="+s.spec.NodeName)
	}
	keys := make([]string, 0, len(s.spec.NodeSelector))
	for k := range s.spec.NodeSelector {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, s.selectorSource(k))
	}
	if requiredTerms(s.spec.Affinity) != nil {
		parts = append(parts, "required node affinity")
	}
	return strings.Join(parts, ", ")
}
