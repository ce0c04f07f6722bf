package windows

import (
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/kubeversion"
)

// Host is what the rule book needs to know about a node: the facts its
// kubelet reports (KLT-1) and labels it with (SCH-1).
type Host struct {
	// Name is the node's name.
	Name string
	// OS is "windows" or "linux", lower case; "linux" when the node says
	// nothing.
	OS string
	// Arch is the architecture, "amd64" when the node says nothing.
	Arch string
	// Build is a Windows node's build, with the revision (UBR) when the
	// kernel version gives it; zero for Linux nodes and unknown builds.
	Build Build
	// BuildLabel is the node's windows-build label exactly as set, the
	// value a selector must name to pick the node (SCH-1); "" when unset.
	BuildLabel string
	// Runtime is RuntimeContainerd or RuntimeDocker.
	Runtime string
	// RuntimeVersion is nodeInfo.containerRuntimeVersion, e.g.
	// "containerd://1.7.13".
	RuntimeVersion string
	// KubeletVersion is nodeInfo.kubeletVersion, e.g. "v1.27.16".
	KubeletVersion string
	// Minor is the kubelet's Kubernetes minor version, 0 when unknown.
	Minor int
	// OSImage is nodeInfo.osImage: a Windows node's product name
	// ("Windows Server 2019 Datacenter"), a Linux node's PRETTY_NAME.
	OSImage string
	// KernelVersion is nodeInfo.kernelVersion: 10.0.build.UBR on Windows,
	// uname -r on Linux.
	KernelVersion string
	// InternalIP is the node's address on the cluster network (see
	// internalIP); invalid when it has none.
	InternalIP netip.Addr
}

// HostOf reads a node's facts, and is the only place that does. The OS and
// architecture come from the labels the kubelet sets (SCH-1: the stable
// label, then the beta one), falling back to nodeInfo (KLT-1). The Windows
// build comes from the windows-build label, falling back to the kernel
// version; when both agree the kernel version adds the revision. The
// runtime is Docker for a "docker://" runtime version, containerd
// otherwise.
func HostOf(n *corev1.Node) Host {
	if n == nil {
		return Host{OS: "linux", Arch: "amd64", Runtime: RuntimeContainerd}
	}
	info := n.Status.NodeInfo
	h := Host{
		Name:           n.Name,
		OS:             strings.ToLower(firstSet(n.Labels[LabelOS], n.Labels[LabelOSBeta], info.OperatingSystem, "linux")),
		Arch:           strings.ToLower(firstSet(n.Labels[LabelArch], n.Labels[LabelArchBeta], info.Architecture, "amd64")),
		Runtime:        RuntimeContainerd,
		RuntimeVersion: info.ContainerRuntimeVersion,
		KubeletVersion: info.KubeletVersion,
		OSImage:        info.OSImage,
		KernelVersion:  info.KernelVersion,
	}
	h.InternalIP = internalIP(n)
	h.BuildLabel = n.Labels[LabelWindowsBuild]
	if IsDocker(info.ContainerRuntimeVersion) {
		h.Runtime = RuntimeDocker
	}
	if m, err := kubeversion.ParseMinor(info.KubeletVersion); err == nil && info.KubeletVersion != "" {
		h.Minor = m
	}
	if h.OS == "windows" {
		h.Build = hostBuild(n.Labels[LabelWindowsBuild], info.KernelVersion)
	}
	return h
}

// hostBuild prefers the label; the kernel version (major.minor.build.UBR)
// adds the revision when it names the same build, and stands in for a
// missing or unreadable label.
func hostBuild(label, kernel string) Build {
	fromKernel, kerr := ParseBuild(kernel)
	fromLabel, lerr := ParseBuild(label)
	switch {
	case lerr == nil && kerr == nil && fromKernel.WithoutRevision() == fromLabel.WithoutRevision():
		return fromKernel
	case lerr == nil:
		return fromLabel
	case kerr == nil:
		return fromKernel
	}
	return Build{}
}

// internalIP is the address the pod network knows the node by: the
// emulated-node-ip annotation when the node carries one (under `winkube
// nodes --kubelet-address` its InternalIP is the real address its kubelet
// serves on), else its first IPv4 InternalIP, else any InternalIP.
func internalIP(n *corev1.Node) netip.Addr {
	if ip, err := netip.ParseAddr(n.Annotations[annotations.EmulatedNodeIP]); err == nil {
		return ip
	}
	var first netip.Addr
	for _, a := range n.Status.Addresses {
		if a.Type != corev1.NodeInternalIP {
			continue
		}
		ip, err := netip.ParseAddr(a.Address)
		if err != nil {
			continue
		}
		if ip.Is4() {
			return ip
		}
		if !first.IsValid() {
			first = ip
		}
	}
	return first
}

// IsWindows reports whether the host runs Windows.
func (h Host) IsWindows() bool { return h.OS == "windows" }

// Platform renders "windows/amd64 10.0.17763" or "linux/arm64", the way
// runtimes name the platform they look for.
func (h Host) Platform() string {
	s := h.OS + "/" + h.Arch
	if h.IsWindows() && !h.Build.IsZero() {
		s += " " + h.Build.Label()
	}
	return s
}

func firstSet(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
