package node

import (
	"time"

	"testing"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/node/internal/status"
)

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
	if status.Ready(node) {
		t.Error("a node without a pod CIDR must not be Ready")
	}
	if spec.pauseImage() != "registry.k8s.io/pause:3.10.2" {
		t.Errorf("pause image = %q", spec.pauseImage())
	}
}

var nowForTest = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
