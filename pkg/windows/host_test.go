package windows

import (
	"net/netip"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/apis/annotations"
)

// rule: SCH-1, KLT-1: a node's facts come from its labels, then nodeInfo;
// the kernel version adds the revision to the windows-build label.
func TestHostOf(t *testing.T) {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "win-1", Labels: map[string]string{LabelOSBeta: "windows", LabelWindowsBuild: "10.0.17763"}},
		Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{OperatingSystem: "linux", Architecture: "amd64",
			KernelVersion: "10.0.17763.5329", ContainerRuntimeVersion: "docker://20.10.9", KubeletVersion: "v1.27.3"}},
	}
	h := HostOf(n)
	want := Host{Name: "win-1", OS: "windows", Arch: "amd64", Build: Build{10, 0, 17763, 5329}, BuildLabel: "10.0.17763", Runtime: RuntimeDocker,
		RuntimeVersion: "docker://20.10.9", KubeletVersion: "v1.27.3", Minor: 27, KernelVersion: "10.0.17763.5329"}
	if h != want {
		t.Errorf("HostOf = %+v, want %+v", h, want)
	}
	if p := h.Platform(); p != "windows/amd64 10.0.17763" {
		t.Errorf("Platform = %q", p)
	}
	// Nothing known: a Linux amd64 containerd node without a build.
	bare := HostOf(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "x"}})
	if bare.OS != "linux" || bare.Arch != "amd64" || bare.Runtime != RuntimeContainerd || !bare.Build.IsZero() || bare.Minor != 0 {
		t.Errorf("HostOf(bare node) = %+v", bare)
	}
	// An unreadable label falls back to the kernel version.
	n.Labels[LabelWindowsBuild] = "ltsc2019"
	if b := HostOf(n).Build; b != (Build{10, 0, 17763, 5329}) {
		t.Errorf("build with a bad label = %v", b)
	}
}

// A node's address on the pod network: its first IPv4 InternalIP, unless
// it serves its kubelet on a real address and keeps the emulated one in
// the emulated-node-ip annotation.
func TestHostOfInternalIP(t *testing.T) {
	n := &corev1.Node{Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
		{Type: corev1.NodeHostName, Address: "win-1"},
		{Type: corev1.NodeInternalIP, Address: "fd00::5"},
		{Type: corev1.NodeInternalIP, Address: "192.168.1.20"},
	}}}
	if ip := HostOf(n).InternalIP; ip != netip.MustParseAddr("192.168.1.20") {
		t.Errorf("InternalIP = %v, want the IPv4 one", ip)
	}
	n.Annotations = map[string]string{annotations.EmulatedNodeIP: "10.127.130.10"}
	if ip := HostOf(n).InternalIP; ip != netip.MustParseAddr("10.127.130.10") {
		t.Errorf("InternalIP = %v, want the emulated address from the annotation", ip)
	}
	n.Status.Addresses = n.Status.Addresses[:2]
	n.Annotations = nil
	if ip := HostOf(n).InternalIP; ip != netip.MustParseAddr("fd00::5") {
		t.Errorf("InternalIP = %v, want the only InternalIP", ip)
	}
}

// rule: SCH-1, SCH-5: the OS a pod's selectors pin.
func TestSelectedOS(t *testing.T) {
	affinity := func(reqs ...corev1.NodeSelectorRequirement) *corev1.Affinity {
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: reqs}}}}}
	}
	tests := []struct {
		name string
		spec corev1.PodSpec
		want string
	}{
		{"none", corev1.PodSpec{}, ""},
		{"os label", corev1.PodSpec{NodeSelector: map[string]string{LabelOS: "linux"}}, "linux"},
		{"build label", corev1.PodSpec{NodeSelector: map[string]string{LabelWindowsBuild: "10.0.20348"}}, "windows"},
		{"affinity", corev1.PodSpec{Affinity: affinity(corev1.NodeSelectorRequirement{Key: LabelOS, Operator: corev1.NodeSelectorOpIn, Values: []string{"windows"}})}, "windows"},
		{"affinity two values", corev1.PodSpec{Affinity: affinity(corev1.NodeSelectorRequirement{Key: LabelOS, Operator: corev1.NodeSelectorOpIn, Values: []string{"windows", "linux"}})}, ""},
		{"spec.os is no selector", corev1.PodSpec{OS: &corev1.PodOS{Name: corev1.Windows}}, ""},
	}
	for _, tt := range tests {
		if got := SelectedOS(&tt.spec); got != tt.want {
			t.Errorf("%s: SelectedOS = %q, want %q", tt.name, got, tt.want)
		}
	}
}
