package windows

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// rule: API-2, API-3, API-8, LIM-15: PodViolations gives each problem its
// rule, field path and fix as data.
func TestPodViolations(t *testing.T) {
	yes := true
	spec := &corev1.PodSpec{
		OS:              &corev1.PodOS{Name: corev1.Windows},
		HostPID:         true,
		SecurityContext: &corev1.PodSecurityContext{},
		Containers: []corev1.Container{{Name: "c", Image: "x",
			SecurityContext: &corev1.SecurityContext{Privileged: &yes}}},
	}
	path := field.NewPath("spec", "template", "spec")
	got := map[string]Violation{}
	for _, v := range PodViolations(spec, path, PodTarget{Minor: 23, Windows: true, Runtime: RuntimeContainerd}) {
		got[v.Rule] = v
	}
	if v := got["API-2"]; v.Path != "spec.template.spec.hostPID" || v.Message != "Forbidden: cannot be set for a windows pod" || v.Fix == "" {
		t.Errorf("API-2 = %+v", v)
	}
	if v := got["API-3"]; v.Path != "spec.template.spec.containers[0].securityContext.privileged" || v.Severity != SeverityError {
		t.Errorf("API-3 = %+v", v)
	}
	if v := got["API-8"]; v.Path != "spec.template.spec.os" || v.Severity != SeverityWarning {
		t.Errorf("API-8 = %+v", v)
	}
	if _, ok := got["LIM-15"]; ok {
		t.Errorf("LIM-15 reported although API-3 rejects privileged with spec.os set")
	}
	// In front of an API server that enforces API-1..6 itself, admission
	// leaves them out.
	for _, v := range PodViolations(spec, path, PodTarget{Minor: 30, Admission: true}) {
		if v.Rule == "API-2" || v.Rule == "API-3" {
			t.Errorf("admission at 1.30 repeats %s", v.Rule)
		}
	}
}
