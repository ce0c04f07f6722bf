package windows

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestNodeLabels(t *testing.T) {
	// rule: SCH-1
	tests := []struct {
		name  string
		os    string
		build Build
		minor int
		beta  bool
		want  map[string]string
	}{
		{"windows 1.27", "windows", b(17763, 5329), 27, false, map[string]string{
			"kubernetes.io/os": "windows", "kubernetes.io/arch": "amd64", "node.kubernetes.io/windows-build": "10.0.17763"}},
		{"windows 1.16 has no build label", "windows", b(17763, 1), 16, true, map[string]string{
			"kubernetes.io/os": "windows", "kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "windows", "beta.kubernetes.io/arch": "amd64"}},
		{"linux", "Linux", Build{}, 27, false, map[string]string{"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}},
	}
	for _, tt := range tests {
		if got := NodeLabels(tt.os, "amd64", tt.build, tt.minor, tt.beta); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestWindowsTaint(t *testing.T) {
	// rule: SCH-3
	taint, tol := WindowsTaint(), WindowsToleration()
	if taint.Key != "os" || taint.Value != "windows" || taint.Effect != corev1.TaintEffectNoSchedule {
		t.Errorf("taint = %+v", taint)
	}
	if tol.Key != taint.Key || tol.Value != taint.Value || tol.Effect != taint.Effect || tol.Operator != corev1.TolerationOpEqual {
		t.Error("toleration does not tolerate the taint")
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
