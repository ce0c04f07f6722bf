package podworker

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestNeedsRestart(t *testing.T) {
	old := resources("20m", "30m", "35Mi", "45Mi")
	restartMem := []corev1.ContainerResizePolicy{{ResourceName: corev1.ResourceMemory, RestartPolicy: corev1.RestartContainer}}
	cases := []struct {
		name   string
		policy []corev1.ContainerResizePolicy
		now    corev1.ResourceRequirements
		want   bool
	}{
		{"no policy", nil, resources("25m", "30m", "40Mi", "45Mi"), false},
		{"memory restart, cpu change", restartMem, resources("25m", "35m", "35Mi", "45Mi"), false},
		{"memory restart, memory limit change", restartMem, resources("20m", "30m", "35Mi", "50Mi"), true},
	}
	for _, c := range cases {
		ct := &ctr{spec: corev1.Container{ResizePolicy: c.policy, Resources: c.now}}
		if got := needsRestart(ct, old); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// resources is the requirements of one container (as pkg/node's
// resize_integration_test.go builds them).
func resources(cpuReq, cpuLim, memReq, memLim string) corev1.ResourceRequirements {
	r := corev1.ResourceRequirements{}
	set := func(l *corev1.ResourceList, name corev1.ResourceName, v string) {
		if v == "" {
			return
		}
		if *l == nil {
			*l = corev1.ResourceList{}
		}
		(*l)[name] = resource.MustParse(v)
	}
	set(&r.Requests, corev1.ResourceCPU, cpuReq)
	set(&r.Requests, corev1.ResourceMemory, memReq)
	set(&r.Limits, corev1.ResourceCPU, cpuLim)
	set(&r.Limits, corev1.ResourceMemory, memLim)
	return r
}
