package kubelet

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/winkube/winkube/pkg/windows"
)

func b(build, rev int) windows.Build { return windows.Build{Major: 10, Build: build, Revision: rev} }

func list(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

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

func TestNodeLabels(t *testing.T) {
	// rule: SCH-1
	tests := []struct {
		name  string
		os    string
		build windows.Build
		minor int
		beta  bool
		want  map[string]string
	}{
		{"windows 1.27", "windows", b(17763, 5329), 27, false, map[string]string{
			"kubernetes.io/os": "windows", "kubernetes.io/arch": "amd64", "node.kubernetes.io/windows-build": "10.0.17763"}},
		{"windows 1.16 has no build label", "windows", b(17763, 1), 16, true, map[string]string{
			"kubernetes.io/os": "windows", "kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "windows", "beta.kubernetes.io/arch": "amd64"}},
		{"linux", "Linux", windows.Build{}, 27, false, map[string]string{"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}},
	}
	for _, tt := range tests {
		if got := NodeLabels(tt.os, "amd64", tt.build, tt.minor, tt.beta); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestNodeSystemInfo(t *testing.T) {
	// rule: KLT-1
	got := NodeSystemInfo(b(17763, 5329), "amd64", "containerd://1.7.13", "v1.27.0")
	if got.OperatingSystem != "windows" || got.OSImage != "Windows Server 2019 Datacenter" ||
		got.KernelVersion != "10.0.17763.5329" || got.ContainerRuntimeVersion != "containerd://1.7.13" {
		t.Errorf("NodeSystemInfo = %+v", got)
	}
	if got := NodeSystemInfo(b(99999, 1), "amd64", "", ""); got.OSImage != "Windows Server Datacenter" {
		t.Errorf("unknown build osImage = %q", got.OSImage)
	}
}

func TestAdmitPodOS(t *testing.T) {
	// rule: KLT-4
	tests := []struct {
		name       string
		labels     map[string]string
		os         *corev1.PodOS
		nodeOS     string
		wantReason string
		wantMsg    string
	}{
		{"nothing set", nil, nil, "windows", "", ""},
		{"label matches", map[string]string{"kubernetes.io/os": "windows"}, nil, "windows", "", ""},
		{"label differs", map[string]string{"kubernetes.io/os": "linux"}, nil, "windows",
			"PodOSSelectorNodeLabelDoesNotMatch", "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label"},
		{"label checked first", map[string]string{"kubernetes.io/os": "linux"}, &corev1.PodOS{Name: corev1.Linux}, "windows",
			"PodOSSelectorNodeLabelDoesNotMatch", "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label"},
		{"os field differs", nil, &corev1.PodOS{Name: corev1.Linux}, "windows",
			"PodOSNotSupported", "Failed to admit pod as the OS field doesn't match node OS"},
		{"os field matches", nil, &corev1.PodOS{Name: corev1.Windows}, "windows", "", ""},
	}
	for _, tt := range tests {
		r, m := AdmitPodOS(tt.labels, tt.os, tt.nodeOS)
		if r != tt.wantReason || m != tt.wantMsg {
			t.Errorf("%s: got %q %q, want %q %q", tt.name, r, m, tt.wantReason, tt.wantMsg)
		}
	}
	r, m := InsufficientResource(corev1.ResourceCPU, 2000, 1000, 2000)
	if r != "OutOfcpu" || m != "Node didn't have enough resource: cpu, requested: 2000, used: 1000, capacity: 2000" {
		t.Errorf("InsufficientResource = %q %q", r, m)
	}
}

// rule: KLT-12
func TestUserAgentNamesTheBinaryAsClientGoDoes(t *testing.T) {
	for _, c := range []struct{ os, arch, version, commit, want string }{
		{"windows", "amd64", "v1.36.3", "", "kubelet.exe/v1.36.3 (windows/amd64) kubernetes/unknown"},
		{"linux", "arm64", "v1.37.0-alpha.1", "0123456789abcdef", "kubelet/v1.37.0 (linux/arm64) kubernetes/0123456"},
		{"linux", "amd64", "", "abc", "kubelet/unknown (linux/amd64) kubernetes/abc"},
	} {
		if got := UserAgent(c.os, c.arch, c.version, c.commit); got != c.want {
			t.Errorf("UserAgent(%q, %q, %q, %q) = %q, want %q", c.os, c.arch, c.version, c.commit, got, c.want)
		}
	}
}
