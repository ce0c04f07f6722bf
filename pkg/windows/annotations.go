package windows

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/rules"
)

// annotationRules are the WK rules of the pod annotations whose value can
// be wrong; annotations.PodValueErrors parses them, for the emulated node
// as for these checks.
var annotationRules = map[string]string{
	annotations.UnknownProgram: "WK-1",
	annotations.RunSeconds:     "WK-2",
	annotations.ExitCode:       "WK-3",
	annotations.IgnoreSIGTERM:  "WK-4",
	annotations.UsageCPU:       "WK-5",
	annotations.UsageMemory:    "WK-6",
}

// AnnotationRule is the WK rule of a pod annotation's value ("" for an
// annotation without one).
func AnnotationRule(key string) string { return annotationRules[key] }

// PodAnnotationViolations checks the winkube annotations of a pod (or a
// pod template; meta is its metadata's path, "metadata" or
// "spec.template.metadata"): each value the emulated node would refuse is
// a violation of the annotation's WK rule whose message is the node's
// refusal, word for word.
func PodAnnotationViolations(ann map[string]string, meta *field.Path) []Violation {
	var out []Violation
	for _, e := range annotations.PodValueErrors(ann) {
		out = append(out, Violation{
			Rule: annotationRules[e.Key], Path: meta.Child("annotations").Key(e.Key).String(),
			Message: e.Error(), Severity: SeverityError,
			Fix: fmt.Sprintf("set %s to %s, or remove it", e.Key, e.Want),
		})
	}
	return out
}

// MisplacedAnnotationViolations: WK-7. The pod annotations on a
// workload's own metadata (ann, at meta) reach no pod, so no node obeys
// them; template is the path of the pod template's metadata they belong in.
func MisplacedAnnotationViolations(ann map[string]string, meta, template *field.Path) []Violation {
	var out []Violation
	for _, key := range annotations.PodKeys {
		if _, ok := ann[key]; !ok {
			continue
		}
		out = append(out, Violation{
			Rule: "WK-7", Path: meta.Child("annotations").Key(key).String(), Severity: SeverityWarning,
			Message: fmt.Sprintf("annotation %s is on the workload, not on its pods, so no node sees it", key),
			Fix:     fmt.Sprintf("move it to %s", template.Child("annotations")),
		})
	}
	return out
}

// IgnoreViolations: WK-8. Every item of annotations.Ignore (at meta) must
// be a rule of the rule book; one that is not silences nothing.
func IgnoreViolations(ann map[string]string, meta *field.Path) []Violation {
	v, ok := ann[annotations.Ignore]
	if !ok {
		return nil
	}
	var unknown []string
	for _, id := range strings.Split(v, ",") {
		id = strings.ToUpper(strings.TrimSpace(id))
		if _, known := rules.Get(id); id != "" && !known && !slices.Contains(unknown, id) {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	return []Violation{{
		Rule: "WK-8", Path: meta.Child("annotations").Key(annotations.Ignore).String(), Severity: SeverityWarning,
		Message: fmt.Sprintf("annotation %s=%q: %s names no rule, so it silences nothing", annotations.Ignore, v, strings.Join(unknown, ", ")),
		Fix:     "list rule IDs of docs/rules.md, such as IMG-2 or LIM-19",
	}}
}
