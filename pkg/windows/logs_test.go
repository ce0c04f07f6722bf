package windows

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// rule: LIM-21: a service under ServiceMonitor.exe, from the image's
// entrypoint or the container's own command, gets the advice; LogMonitor
// in front of it, another program, or an image nobody knows do not.
func TestServiceLogs(t *testing.T) {
	iis := func(image string) ([]string, []string, bool) {
		if image == "iis" {
			return []string{`C:\ServiceMonitor.exe`, "w3svc"}, nil, true
		}
		return nil, nil, false
	}
	for _, tc := range []struct {
		name string
		c    corev1.Container
		want bool
	}{
		{"image entrypoint", corev1.Container{Image: "iis"}, true},
		{"own command", corev1.Container{Image: "other", Command: []string{"servicemonitor", "w3svc"}}, true},
		{"wrapped", corev1.Container{Image: "iis", Command: []string{`C:\LogMonitor\LogMonitor.exe`, `C:\ServiceMonitor.exe`, "w3svc"}}, false},
		{"other program", corev1.Container{Image: "iis", Command: []string{"powershell", "-c", "x"}}, false},
		{"unknown image", corev1.Container{Image: "other"}, false},
	} {
		spec := &corev1.PodSpec{Containers: []corev1.Container{tc.c}}
		got := ServiceLogs(spec, field.NewPath("spec"), iis)
		if (len(got) == 1) != tc.want {
			t.Errorf("%s: %v, want a finding: %v", tc.name, got, tc.want)
		}
		if len(got) == 1 && (got[0].Rule != "LIM-21" || got[0].Severity != SeverityInfo || got[0].Path != "spec.containers[0].image") {
			t.Errorf("%s: %+v", tc.name, got[0])
		}
	}
}
