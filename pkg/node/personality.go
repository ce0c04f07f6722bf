package node

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/node/internal/cri"
	"github.com/winkube/winkube/pkg/node/internal/linux"
	"github.com/winkube/winkube/pkg/node/internal/windows"
)

// personality is what differs between a Windows Server node and a Linux
// node: how the host describes itself and how its runtime treats pods. The
// rest of the kubelet is shared, as upstream.
type personality interface {
	// OS is the kubernetes.io/os value: "windows" or "linux".
	OS() string
	// Runtime is the emulated container runtime.
	Runtime() cri.Runtime
	// NodeInfo is node.status.nodeInfo (KLT-1) without machineID,
	// systemUUID and bootID, which the agent derives from the node name.
	NodeInfo(kubeletVersion string) corev1.NodeSystemInfo
	// ExtraCapacity is added to cpu/memory/pods/ephemeral-storage.
	ExtraCapacity() corev1.ResourceList
	// GracePeriod is the seconds a container really gets to stop (LIM-14).
	GracePeriod(requested int64) int64
	// KilledExitCode is the exit code of a container killed at the end of
	// its grace period.
	KilledExitCode() int32
	// UsesPodNetwork reports whether the pod gets an IP from the pod CIDR.
	UsesPodNetwork(pod *corev1.Pod) bool
}

// newPersonality picks the personality for a pool.
func newPersonality(pool *v1alpha1.NodePool) (personality, error) {
	switch pool.OS {
	case v1alpha1.OSWindows:
		build, err := pool.WindowsBuild()
		if err != nil {
			return nil, fmt.Errorf("node pool %q: %w", pool.Name, err)
		}
		return windows.New(build, pool.Runtime, pool.CPU), nil
	case v1alpha1.OSLinux:
		return linux.New(pool.Runtime), nil
	default:
		return nil, fmt.Errorf("node pool %q: unsupported os %q (want linux or windows)", pool.Name, pool.OS)
	}
}
