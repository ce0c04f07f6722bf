package node

import (
	"time"

	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/node/internal/nodestatus"
)

// rule: KLT-5, KLT-6
func TestWindowsContainerConfigVectors(t *testing.T) {
	cases := []struct {
		limit string
		cores int64
		want  int64
	}{{"1", 1, 10000}, {"94", 96, 9791}, {"1", 2, 5000}, {"2", 1, 10000}, {"1m", 100, 1}}
	for _, c := range cases {
		pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "c",
			Resources: corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(c.limit), corev1.ResourceMemory: resource.MustParse("1Gi")},
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1m")},
			},
		}}}}
		got := windowsContainerConfigs(pod, c.cores)["c"]
		if got.CPUMaximum != c.want || got.MemoryLimitInBytes != 1<<30 {
			t.Errorf("limit %s on %d cores: %+v, want cpuMaximum %d and 1Gi", c.limit, c.cores, got, c.want)
		}
	}
	// Requests alone send nothing.
	reqOnly := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}}}
	if got := windowsContainerConfigs(reqOnly, 4)["c"]; got != (WindowsContainerConfig{}) {
		t.Errorf("requests only: %+v, want nothing sent", got)
	}
}

// rule: KLT-7
func TestRunAsUserNamePrecedence(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		SecurityContext: &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{
			RunAsUserName: ptr.To("ContainerUser"), GMSACredentialSpecName: ptr.To("webapp"),
		}},
		Containers: []corev1.Container{
			{Name: "own", SecurityContext: &corev1.SecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr.To("ContainerAdministrator")}}},
			{Name: "inherits"},
		},
	}}
	got := windowsContainerConfigs(pod, 4)
	if got["own"].RunAsUserName != "ContainerAdministrator" || got["inherits"].RunAsUserName != "ContainerUser" {
		t.Errorf("runAsUserName: %+v", got)
	}
	if got["own"].GMSACredentialSpecName != "webapp" {
		t.Errorf("gMSA spec not inherited: %+v", got["own"])
	}
}

// rule: KLT-1, KLT-2, SCH-1
func TestNodeObjectForWindowsPool(t *testing.T) {
	c := v1alpha1.DefaultCluster()
	nodes := c.Nodes()
	var spec *nodeSpec
	for _, n := range nodes {
		if n.Name == "win2019-1" {
			host, err := newPersonality(n.Pool)
			if err != nil {
				t.Fatal(err)
			}
			spec = &nodeSpec{name: n.Name, pool: n.Pool, ip: n.InternalIP.String(), host: host, kubelet: defaultKubeletVer}
		}
	}
	node := spec.initialNode(nowForTest)
	if node.Labels["node.kubernetes.io/windows-build"] != "10.0.17763" || node.Labels[LabelPool] != "win2019" {
		t.Errorf("labels = %v", node.Labels)
	}
	if got := node.Status.NodeInfo.KernelVersion; got != "10.0.17763.5329" {
		t.Errorf("kernelVersion = %q", got)
	}
	if got := node.Status.NodeInfo.ContainerRuntimeVersion; got != "containerd://1.7.20" {
		t.Errorf("containerRuntimeVersion = %q", got)
	}
	// 8Gi - 2Gi system-reserved - 500Mi eviction = 5644Mi.
	if got, want := node.Status.Allocatable.Memory().Value(), int64(5644)<<20; got != want {
		t.Errorf("allocatable memory = %d, want %d", got, want)
	}
	// 100Gi - 10% nodefs eviction, the 10% taken as float32(0.1) as the
	// kubelet does: 100Gi - 800 × 13421773 bytes.
	if got, want := node.Status.Allocatable.StorageEphemeral().Value(), int64(100<<30-800*13421773); got != want {
		t.Errorf("allocatable ephemeral-storage = %d, want %d", got, want)
	}
	if len(node.Spec.Taints) != 1 || node.Spec.Taints[0].Key != "os" {
		t.Errorf("taints = %v", node.Spec.Taints)
	}
	if nodestatus.Ready(node) {
		t.Error("a node without a pod CIDR must not be Ready")
	}
	if spec.pauseImage() != "registry.k8s.io/pause:3.10.2" {
		t.Errorf("pause image = %q", spec.pauseImage())
	}
}

var nowForTest = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
