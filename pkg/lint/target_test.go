package lint

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/windows"
)

// rule: SCH-1
// rule: SCH-3
// The default cluster's nodes carry the kubelet's labels and the pools'
// taints, as winkube's nodes register.
func TestTargetFromDefaultCluster(t *testing.T) {
	target, err := TargetFromCluster(v1alpha1.DefaultCluster())
	if err != nil {
		t.Fatal(err)
	}
	if len(target.Nodes) != 4 || !target.Mixed() || target.Minor != kubeversion.DefaultMinor {
		t.Fatalf("nodes %d, mixed %v, minor %d", len(target.Nodes), target.Mixed(), target.Minor)
	}
	builds := map[string]string{}
	for _, n := range target.Nodes {
		l := n.Obj.Labels
		if l[corev1.LabelOSStable] != n.OS || l[labelBetaOS] != n.OS || l[corev1.LabelHostname] != n.Name {
			t.Errorf("%s: labels %v", n.Name, l)
		}
		if n.IsWindows() {
			builds[n.Name] = l[corev1.LabelWindowsBuild]
			if len(n.Obj.Spec.Taints) != 1 || n.Obj.Spec.Taints[0].ToString() != "os=windows:NoSchedule" {
				t.Errorf("%s: taints %v", n.Name, n.Obj.Spec.Taints)
			}
		}
	}
	want := map[string]string{"win2019-1": "10.0.17763", "win2019-2": "10.0.17763", "win2022-1": "10.0.20348"}
	for name, b := range want {
		if builds[name] != b {
			t.Errorf("%s windows-build = %q, want %q", name, builds[name], b)
		}
	}
}

// A live node is read from its labels, falling back to nodeInfo; an
// unschedulable node gets the scheduler's taint.
func TestNodeFromLive(t *testing.T) {
	win := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "akswin000000", Labels: map[string]string{corev1.LabelOSStable: "windows", corev1.LabelArchStable: "amd64"}},
		Spec:       corev1.NodeSpec{Unschedulable: true},
		Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{
			OperatingSystem: "windows", KernelVersion: "10.0.20348.2227", ContainerRuntimeVersion: "containerd://1.7.13",
		}},
	}
	n := nodeFromLive(win)
	if n.OS != "windows" || n.Arch != "amd64" || n.Runtime != "containerd" {
		t.Errorf("node %+v", n)
	}
	if n.Build != (windows.Build{Major: 10, Minor: 0, Build: 20348, Revision: 2227}) {
		t.Errorf("build %v", n.Build)
	}
	if len(n.Obj.Spec.Taints) != 1 || n.Obj.Spec.Taints[0].Key != corev1.TaintNodeUnschedulable {
		t.Errorf("taints %v", n.Obj.Spec.Taints)
	}
	if len(win.Spec.Taints) != 0 {
		t.Error("the API object was changed")
	}
	lin := &corev1.Node{Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{OperatingSystem: "linux", Architecture: "arm64", ContainerRuntimeVersion: "docker://20.10"}}}
	if n := nodeFromLive(lin); n.OS != "linux" || n.Arch != "arm64" || n.Runtime != "docker" || !n.Build.IsZero() {
		t.Errorf("linux node %+v", n)
	}
}
