package windows

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestCPUMaximum(t *testing.T) {
	// rule: KLT-5 (every example docs/rules.md gives, plus bad input)
	tests := []struct {
		name     string
		milliCPU int64
		cpuCount int64
		want     int64
	}{
		{"limit 1, 1 core", 1000, 1, 10000},
		{"limit 94, 96 cores", 94000, 96, 9791},
		{"limit 1, 2 cores", 1000, 2, 5000},
		{"limit 2, 1 core", 2000, 1, 10000},
		{"limit 1m, 100 cores", 1, 100, 1},
		{"zero limit clamps to 1", 0, 4, 1},
		{"negative limit clamps to 1", -500, 4, 1},
		{"zero cores treated as 1", 500, 0, 5000},
		{"negative cores treated as 1", 500, -3, 5000},
	}
	for _, tt := range tests {
		if got := CPUMaximum(tt.milliCPU, tt.cpuCount); got != tt.want {
			t.Errorf("%s: CPUMaximum(%d, %d) = %d, want %d", tt.name, tt.milliCPU, tt.cpuCount, got, tt.want)
		}
	}
}

func list(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func TestAllocatable(t *testing.T) {
	// rule: KLT-2
	tests := []struct {
		name                string
		capacity, kube, sys corev1.ResourceList
		eviction            map[string]string
		want                corev1.ResourceList
	}{
		{
			name:     "windows defaults",
			capacity: list("cpu", "4", "memory", "8Gi", "ephemeral-storage", "100Gi", "pods", "110"),
			sys:      list("memory", "2Gi"),
			eviction: DefaultEvictionHard("windows"),
			// nodefs.available 10% is float32(0.1) of 100Gi as the kubelet
			// computes it: 800 × 13421773 = 10737418400 bytes reserved.
			want: list("cpu", "4", "memory", "5644Mi", "ephemeral-storage", "96636764000", "pods", "110"),
		},
		{
			name:     "kube and system reserved both subtract",
			capacity: list("cpu", "4", "memory", "8Gi"),
			kube:     list("cpu", "500m", "memory", "1Gi"),
			sys:      list("cpu", "500m", "memory", "1Gi"),
			want:     list("cpu", "3", "memory", "6Gi"),
		},
		{
			name:     "floored at zero",
			capacity: list("cpu", "1", "memory", "1Gi"),
			sys:      list("cpu", "2", "memory", "2Gi"),
			eviction: map[string]string{"memory.available": "500Mi"},
			want:     list("cpu", "0", "memory", "0"),
		},
		{
			name:     "reservations for absent resources are ignored",
			capacity: list("cpu", "2"),
			sys:      list("memory", "2Gi", "hugepages-2Mi", "1Gi"),
			eviction: map[string]string{"memory.available": "500Mi"},
			want:     list("cpu", "2"),
		},
		{
			name:     "flag form and imagefs ignored",
			capacity: list("memory", "4Gi", "ephemeral-storage", "10Gi"),
			eviction: map[string]string{"memory.available<1Gi": "", "imagefs.available": "50%", "nodefs.inodesFree": "5%"},
			want:     list("memory", "3Gi", "ephemeral-storage", "10Gi"),
		},
		{
			name:     "unparsable thresholds skipped",
			capacity: list("memory", "4Gi"),
			eviction: map[string]string{"memory.available": "lots"},
			want:     list("memory", "4Gi"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Allocatable(tt.capacity, tt.kube, tt.sys, tt.eviction)
			if len(got) != len(tt.want) {
				t.Fatalf("Allocatable = %v, want %v", got, tt.want)
			}
			for name, w := range tt.want {
				g, ok := got[name]
				if !ok || g.Cmp(w) != 0 {
					t.Errorf("%s = %s, want %s", name, g.String(), w.String())
				}
			}
		})
	}
}

func TestDefaultEvictionHard(t *testing.T) {
	// rule: KLT-2
	tests := []struct {
		os   string
		want map[string]string
	}{
		{"windows", map[string]string{"memory.available": "500Mi", "nodefs.available": "10%", "imagefs.available": "15%"}},
		{"Windows", map[string]string{"memory.available": "500Mi", "nodefs.available": "10%", "imagefs.available": "15%"}},
		{"linux", map[string]string{"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%", "imagefs.available": "15%", "imagefs.inodesFree": "5%"}},
	}
	for _, tt := range tests {
		got := DefaultEvictionHard(tt.os)
		if len(got) != len(tt.want) {
			t.Errorf("DefaultEvictionHard(%q) = %v, want %v", tt.os, got, tt.want)
			continue
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("DefaultEvictionHard(%q)[%s] = %q, want %q", tt.os, k, got[k], v)
			}
		}
	}
}

func TestGracePeriod(t *testing.T) {
	// rule: LIM-14
	tests := []struct {
		runtime   string
		requested int64
		want      int64
	}{
		{"containerd", 30, 30},
		{"containerd", 300, 300},
		{"containerd://1.7.13", 120, 120},
		{"docker", 30, 5},
		{"docker://19.3.14", 30, 5},
		{"Docker", 3, 3},
		{"docker", 5, 5},
		{"docker", 0, 0},
		{"containerd", -1, 0},
		{"", 30, 30},
	}
	for _, tt := range tests {
		if got := GracePeriod(tt.runtime, tt.requested); got != tt.want {
			t.Errorf("GracePeriod(%q, %d) = %d, want %d", tt.runtime, tt.requested, got, tt.want)
		}
	}
}
