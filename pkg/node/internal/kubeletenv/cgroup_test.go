package kubeletenv

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestCgroupFiles(t *testing.T) {
	rl := func(cpu, mem string) corev1.ResourceList {
		l := corev1.ResourceList{}
		if cpu != "" {
			l[corev1.ResourceCPU] = resource.MustParse(cpu)
		}
		if mem != "" {
			l[corev1.ResourceMemory] = resource.MustParse(mem)
		}
		return l
	}
	cases := []struct {
		name                   string
		req, lim, podLim       corev1.ResourceList
		cpuMax, weight, memMax string
	}{
		{"best effort", nil, nil, nil, "max 100000\n", "1\n", "max\n"},
		{"guaranteed", rl("500m", "200Mi"), rl("500m", "200Mi"), nil, "50000 100000\n", "59\n", "209715200\n"},
		{"tiny limit", rl("1m", ""), rl("5m", ""), nil, "1000 100000\n", "1\n", "max\n"},
		{"burstable", rl("100m", "100Mi"), rl("2", "1Gi"), nil, "200000 100000\n", "17\n", "1073741824\n"},
		{"pod-level limits", nil, nil, rl("1", "512Mi"), "100000 100000\n", "1\n", "536870912\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c",
				Resources: corev1.ResourceRequirements{Requests: tc.req, Limits: tc.lim}}}}}
			if tc.podLim != nil {
				pod.Spec.Resources = &corev1.ResourceRequirements{Limits: tc.podLim}
			}
			got := CgroupFiles(pod, &pod.Spec.Containers[0], testNode())
			if s := string(got["/sys/fs/cgroup/cpu.max"]); s != tc.cpuMax {
				t.Errorf("cpu.max %q want %q", s, tc.cpuMax)
			}
			if s := string(got["/sys/fs/cgroup/cpu.weight"]); s != tc.weight {
				t.Errorf("cpu.weight %q want %q", s, tc.weight)
			}
			if s := string(got["/sys/fs/cgroup/memory.max"]); s != tc.memMax {
				t.Errorf("memory.max %q want %q", s, tc.memMax)
			}
		})
	}
}
