package windows

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Node labels (SCH-1).
const (
	LabelOS           = "kubernetes.io/os"
	LabelArch         = "kubernetes.io/arch"
	LabelWindowsBuild = "node.kubernetes.io/windows-build"
	// Deprecated labels older clusters also set.
	LabelOSBeta   = "beta.kubernetes.io/os"
	LabelArchBeta = "beta.kubernetes.io/arch"
)

// firstWindowsBuildLabelMinor is the Kubernetes minor whose kubelet started
// setting node.kubernetes.io/windows-build (SCH-1, VER-2).
const firstWindowsBuildLabelMinor = 17

// NodeLabels implements SCH-1: the OS labels a kubelet of Kubernetes
// 1.<k8sMinor> puts on its node. Windows nodes from 1.17 also carry the
// windows-build label (major.minor.build, no revision). withBeta adds the
// deprecated beta.kubernetes.io labels older clusters used.
func NodeLabels(os, arch string, build Build, k8sMinor int, withBeta bool) map[string]string {
	os = strings.ToLower(os)
	labels := map[string]string{LabelOS: os, LabelArch: arch}
	if os == "windows" && k8sMinor >= firstWindowsBuildLabelMinor && !build.IsZero() {
		labels[LabelWindowsBuild] = build.Label()
	}
	if withBeta {
		labels[LabelOSBeta] = os
		labels[LabelArchBeta] = arch
	}
	return labels
}

// WindowsTaint is the taint the upstream Windows scheduling guide
// recommends for Windows nodes (SCH-3), registered with
// --register-with-taints=os=windows:NoSchedule. The cluster config's
// default taint for Windows pools is this one.
func WindowsTaint() corev1.Taint {
	return corev1.Taint{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}
}

// WindowsToleration tolerates WindowsTaint (SCH-3).
func WindowsToleration() corev1.Toleration {
	return corev1.Toleration{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}
}

// NodeSystemInfo implements KLT-1 for a Windows node: operatingSystem
// windows, osImage the product name, kernelVersion major.minor.build.UBR
// (the Windows kubelet reads all four from the registry, so the UBR shows
// even when it is 0). machineID, systemUUID and bootID are left empty.
// runtimeVersion is e.g. "containerd://1.7.13" or "docker://19.3.14". A
// build not in the IMG-1 table reports a generic product name.
func NodeSystemInfo(build Build, arch, runtimeVersion, kubeletVersion string) corev1.NodeSystemInfo {
	product := "Windows Server Datacenter"
	if r, ok := ReleaseByBuild(build.Build); ok {
		product = r.ProductName
	}
	return corev1.NodeSystemInfo{
		OperatingSystem:         "windows",
		Architecture:            arch,
		OSImage:                 product,
		KernelVersion:           fmt.Sprintf("%s.%d", build.Label(), build.Revision),
		ContainerRuntimeVersion: runtimeVersion,
		KubeletVersion:          kubeletVersion,
	}
}

// Pod admission reasons and messages of the kubelet (KLT-4).
const (
	ReasonInvalidNodeInfo   = "InvalidNodeInfo"
	ReasonOSLabelMismatch   = "PodOSSelectorNodeLabelDoesNotMatch"
	ReasonOSNotSupported    = "PodOSNotSupported"
	MessageInvalidNodeInfo  = "Kubelet cannot get node info."
	MessageOSLabelMismatch  = "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label"
	MessageOSNotSupported   = "Failed to admit pod as the OS field doesn't match node OS"
	reasonResourcePrefix    = "OutOf"
	messageResourceTemplate = "Node didn't have enough resource: %s, requested: %d, used: %d, capacity: %d"
)

// AdmitPodOS implements the OS steps of KLT-4, in the kubelet's order: the
// pod's kubernetes.io/os *label* (not its nodeSelector) must equal the node's
// OS, then spec.os.name, when set, must equal it too. It returns empty
// strings when the pod is admitted.
func AdmitPodOS(podLabels map[string]string, podOS *corev1.PodOS, nodeOS string) (reason, message string) {
	if v, ok := podLabels[LabelOS]; ok && v != nodeOS {
		return ReasonOSLabelMismatch, MessageOSLabelMismatch
	}
	if podOS != nil && string(podOS.Name) != nodeOS {
		return ReasonOSNotSupported, MessageOSNotSupported
	}
	return "", ""
}

// InsufficientResource is the KLT-4 resource rejection: reason "OutOf"
// followed by the resource name ("OutOfcpu", "OutOfmemory", "OutOfpods",
// "OutOfhugepages-2Mi", ...) and the kubelet's message. cpu amounts are in
// millicores, everything else in plain units.
func InsufficientResource(resource corev1.ResourceName, requested, used, capacity int64) (reason, message string) {
	return reasonResourcePrefix + string(resource),
		fmt.Sprintf(messageResourceTemplate, resource, requested, used, capacity)
}
