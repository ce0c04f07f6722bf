// Package windows is the Windows Server personality of an emulated node:
// what a kubelet on Windows reports about its host (KLT-1, SCH-1) and how the
// Windows runtime treats a pod (KLT-5..7, LIM-2, LIM-14).
package windows

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/node/internal/cri"
	rules "github.com/winkube/winkube/pkg/windows"
	"github.com/winkube/winkube/pkg/windows/kubelet"
)

// runtimeVersions are the versions a Windows node reports per runtime:
// containerd 1.7 is what Windows nodes of the 1.3x era ship; Docker EE
// 19.03 is the last dockershim-era Windows engine (KLT-10).
var runtimeVersions = map[string]string{
	cri.Containerd: "1.7.20",
	cri.Docker:     "19.3.14",
}

// Host is a Windows Server node.
type Host struct {
	build   rules.Build
	runtime cri.Runtime
	cpus    int64
}

// New returns the personality of a Windows node of the given build
// (with UBR), runtime ("containerd" or "docker") and core count.
func New(build rules.Build, runtime string, cpus int) *Host {
	if runtime == "" {
		runtime = cri.Containerd
	}
	return &Host{
		build:   build,
		runtime: cri.Runtime{Name: runtime, Version: runtimeVersions[runtime], OS: "windows", Arch: "amd64", Build: build},
		cpus:    int64(cpus),
	}
}

// OS is the kubernetes.io/os value.
func (h *Host) OS() string { return "windows" }

// Runtime is the node's container runtime.
func (h *Host) Runtime() cri.Runtime { return h.runtime }

// NodeInfo is node.status.nodeInfo without the machine identifiers, as
// pkg/windows defines it for a Windows kubelet (KLT-1).
func (h *Host) NodeInfo(kubeletVersion string) corev1.NodeSystemInfo {
	return kubelet.NodeSystemInfo(h.build, h.runtime.Arch, h.runtime.VersionString(), kubeletVersion)
}

// ExtraCapacity is empty: Windows has no hugepages (LIM-8), so a pod that
// asks for them fails admission like on a real node.
func (h *Host) ExtraCapacity() corev1.ResourceList { return nil }

// GracePeriod is LIM-14: Docker kills after 5 s whatever the pod asks.
func (h *Host) GracePeriod(requested int64) int64 {
	return rules.GracePeriod(h.runtime.Name, requested)
}

// KilledExitCode is what a Windows container reports when the runtime
// terminates it: STATUS_CONTROL_C_EXIT (0xC000013A) as a signed 32-bit code.
func (h *Host) KilledExitCode() int32 { return -1073741510 }

// UsesPodNetwork reports whether the pod's sandbox joins the pod network.
// Normal Windows pods cannot use the host network (LIM-2): only HostProcess
// pods do, so a plain hostNetwork pod still gets a pod IP.
func (h *Host) UsesPodNetwork(pod *corev1.Pod) bool {
	return !pod.Spec.HostNetwork || !isHostProcess(pod)
}

func isHostProcess(pod *corev1.Pod) bool {
	sc := pod.Spec.SecurityContext
	return sc != nil && sc.WindowsOptions != nil && sc.WindowsOptions.HostProcess != nil && *sc.WindowsOptions.HostProcess
}
