// Package linux is the Linux personality of an emulated node: what a kubelet
// on a Debian worker reports about its host.
package linux

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/winkube/winkube/pkg/node/internal/cri"
)

// runtimeVersions are the versions a Linux node reports per runtime; Docker
// runs through cri-dockerd since dockershim's removal.
var runtimeVersions = map[string]string{
	cri.Containerd: "1.7.24",
	cri.Docker:     "24.0.7",
}

// Host is a Linux node.
type Host struct {
	runtime cri.Runtime
}

// New returns the personality of a Linux node with the given runtime.
func New(runtime string) *Host {
	if runtime == "" {
		runtime = cri.Containerd
	}
	return &Host{runtime: cri.Runtime{Name: runtime, Version: runtimeVersions[runtime], OS: "linux", Arch: "amd64"}}
}

// OS is the kubernetes.io/os value.
func (h *Host) OS() string { return "linux" }

// Runtime is the node's container runtime.
func (h *Host) Runtime() cri.Runtime { return h.runtime }

// NodeInfo is node.status.nodeInfo without the machine identifiers: osImage
// is /etc/os-release's PRETTY_NAME and kernelVersion `uname -r` of Debian
// 12's cloud kernel.
func (h *Host) NodeInfo(kubeletVersion string) corev1.NodeSystemInfo {
	return corev1.NodeSystemInfo{
		OperatingSystem:         h.runtime.OS,
		Architecture:            h.runtime.Arch,
		OSImage:                 "Debian GNU/Linux 12 (bookworm)",
		KernelVersion:           "6.1.0-28-cloud-amd64",
		ContainerRuntimeVersion: h.runtime.VersionString(),
		KubeletVersion:          kubeletVersion,
	}
}

// ExtraCapacity lists the hugepage sizes a Linux kubelet always reports.
func (h *Host) ExtraCapacity() corev1.ResourceList {
	return corev1.ResourceList{
		"hugepages-1Gi": resource.MustParse("0"),
		"hugepages-2Mi": resource.MustParse("0"),
	}
}

// GracePeriod honours the pod's request in full: the Docker cap of LIM-14
// is a Windows behaviour.
func (h *Host) GracePeriod(requested int64) int64 { return max(requested, 0) }

// KilledExitCode is 128+SIGKILL.
func (h *Host) KilledExitCode() int32 { return 137 }

// UsesPodNetwork is false for hostNetwork pods.
func (h *Host) UsesPodNetwork(pod *corev1.Pod) bool { return !pod.Spec.HostNetwork }
