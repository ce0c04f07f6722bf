// Package kubelet is the rule book's account of what a kubelet does on
// its own node: the labels and system info it reports (SCH-1, KLT-1), the
// pods it admits (KLT-4), the allocatable it leaves after reservations
// and eviction thresholds (KLT-2) and the CPU cap it hands HCS (KLT-5).
// Like pkg/windows it is pure: no I/O.
package kubelet

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/winkube/winkube/pkg/windows"
)

// CPU maximum bounds (KLT-5): HCS expresses a CPU cap in 1/10000ths of the
// whole host.
const (
	minCPUMaximum = 1
	maxCPUMaximum = 10000
)

// CPUMaximum implements rule KLT-5: the HCS CpuMaximum for a CPU limit of
// milliCPU on a host with cpuCount logical processors is
// 10 * milliCPU / cpuCount (integer division) clamped to [1, 10000].
// A cpuCount below 1 is treated as 1 so bad input cannot divide by zero.
func CPUMaximum(milliCPU int64, cpuCount int64) int64 {
	if cpuCount < 1 {
		cpuCount = 1
	}
	v := 10 * milliCPU / cpuCount
	if v < minCPUMaximum {
		return minCPUMaximum
	}
	if v > maxCPUMaximum {
		return maxCPUMaximum
	}
	return v
}

// Eviction signals that reserve capacity (KLT-2). As in the kubelet, only
// these two reduce allocatable; imagefs and inode thresholds do not.
const (
	SignalMemoryAvailable = "memory.available"
	SignalNodeFsAvailable = "nodefs.available"
)

// DefaultEvictionHard returns the kubelet's default hard eviction thresholds
// for an OS (KLT-2) in KubeletConfiguration form: signal → quantity or
// percentage. Windows reserves 500Mi of memory because its system processes
// need more than Linux's 100Mi.
func DefaultEvictionHard(os string) map[string]string {
	if strings.EqualFold(os, "windows") {
		return map[string]string{
			"memory.available":  "500Mi",
			"nodefs.available":  "10%",
			"imagefs.available": "15%",
		}
	}
	return map[string]string{
		"memory.available":   "100Mi",
		"nodefs.available":   "10%",
		"nodefs.inodesFree":  "5%",
		"imagefs.available":  "15%",
		"imagefs.inodesFree": "5%",
	}
}

// Allocatable implements rule KLT-2: for every resource in capacity,
// capacity − kubeReserved − systemReserved − the hard eviction amount, never
// below zero. Reservations for resources the node does not have are ignored.
// Eviction entries may be written as {"memory.available": "500Mi"} or in
// flag form {"memory.available<500Mi": ""}; unparsable ones are skipped.
func Allocatable(capacity, kubeReserved, systemReserved corev1.ResourceList, evictionHard map[string]string) corev1.ResourceList {
	eviction := evictionReservation(evictionHard, capacity)
	out := corev1.ResourceList{}
	for name, capQty := range capacity {
		v := capQty.DeepCopy()
		for _, list := range []corev1.ResourceList{kubeReserved, systemReserved, eviction} {
			if q, ok := list[name]; ok {
				v.Sub(q)
			}
		}
		if v.Sign() < 0 {
			v = *resource.NewQuantity(0, capQty.Format)
		}
		out[name] = v
	}
	return out
}

// evictionReservation turns hard eviction thresholds into reserved amounts of
// memory and ephemeral-storage; percentages are of capacity.
func evictionReservation(evictionHard map[string]string, capacity corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for key, value := range evictionHard {
		signal, threshold := splitThreshold(key, value)
		var res corev1.ResourceName
		switch signal {
		case SignalMemoryAvailable:
			res = corev1.ResourceMemory
		case SignalNodeFsAvailable:
			res = corev1.ResourceEphemeralStorage
		default:
			continue
		}
		capQty := capacity[res]
		if q, ok := thresholdQuantity(threshold, capQty); ok {
			out[res] = q
		}
	}
	return out
}

// splitThreshold accepts both the config form (key=signal, value=threshold)
// and the flag form (key="signal<threshold").
func splitThreshold(key, value string) (signal, threshold string) {
	if i := strings.Index(key, "<"); i >= 0 {
		return strings.TrimSpace(key[:i]), strings.TrimSpace(key[i+1:])
	}
	return strings.TrimSpace(key), strings.TrimSpace(value)
}

// thresholdQuantity resolves "500Mi" or "10%" against a capacity.
func thresholdQuantity(threshold string, capacity resource.Quantity) (resource.Quantity, bool) {
	if pct, ok := strings.CutSuffix(threshold, "%"); ok {
		// The kubelet parses the percentage as a float32 fraction and
		// multiplies in float64 (pkg/kubelet/eviction/helpers.go
		// parsePercentage, api/types.go GetThresholdQuantity): 10% of 100Gi
		// is 10737418400 bytes, not 10737418240.
		f, err := strconv.ParseFloat(pct, 32)
		if err != nil || f < 0 || f > 100 {
			return resource.Quantity{}, false
		}
		fraction := float32(f) / 100
		return *resource.NewQuantity(int64(float64(capacity.Value())*float64(fraction)), resource.BinarySI), true
	}
	q, err := resource.ParseQuantity(threshold)
	if err != nil {
		return resource.Quantity{}, false
	}
	return q, true
}

// firstWindowsBuildLabelMinor is the Kubernetes minor whose kubelet started
// setting node.kubernetes.io/windows-build (SCH-1, VER-2).
const firstWindowsBuildLabelMinor = 17

// NodeLabels implements SCH-1: the OS labels a kubelet of Kubernetes
// 1.<k8sMinor> puts on its node. Windows nodes from 1.17 also carry the
// windows-build label (major.minor.build, no revision). withBeta adds the
// deprecated beta.kubernetes.io labels older clusters used.
func NodeLabels(os, arch string, build windows.Build, k8sMinor int, withBeta bool) map[string]string {
	os = strings.ToLower(os)
	labels := map[string]string{windows.LabelOS: os, windows.LabelArch: arch}
	if os == "windows" && k8sMinor >= firstWindowsBuildLabelMinor && !build.IsZero() {
		labels[windows.LabelWindowsBuild] = build.Label()
	}
	if withBeta {
		labels[windows.LabelOSBeta] = os
		labels[windows.LabelArchBeta] = arch
	}
	return labels
}

// NodeSystemInfo implements KLT-1 for a Windows node: operatingSystem
// windows, osImage the product name, kernelVersion major.minor.build.UBR
// (the Windows kubelet reads all four from the registry, so the UBR shows
// even when it is 0). machineID, systemUUID and bootID are left empty.
// runtimeVersion is e.g. "containerd://1.7.13" or "docker://19.3.14". A
// build not in the IMG-1 table reports a generic product name.
func NodeSystemInfo(build windows.Build, arch, runtimeVersion, kubeletVersion string) corev1.NodeSystemInfo {
	product := "Windows Server Datacenter"
	if r, ok := windows.ReleaseByBuild(build.Build); ok {
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
	if v, ok := podLabels[windows.LabelOS]; ok && v != nodeOS {
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

// Binary is the path the kubelet runs from on a node of the given OS
// (KLT-12): the seed's Windows service definitions start C:\k\kubelet.exe,
// the Linux packages install /usr/bin/kubelet.
func Binary(os string) string {
	if os == "windows" {
		return `C:\k\kubelet.exe`
	}
	return "/usr/bin/kubelet"
}

// UserAgent is the User-Agent of a kubelet's API client (KLT-12), built as
// client-go's rest.DefaultKubernetesUserAgent builds it on that node: the
// base name of Binary(os) by the node's path rules, the version without
// its pre-release part, the platform, and at most seven characters of the
// commit ("unknown" for an empty version or commit). The API server names
// the kubelet's writes after the part before the first "/".
func UserAgent(os, arch, version, commit string) string {
	bin := Binary(os)
	command := bin[strings.LastIndexAny(bin, `/\`)+1:]
	version, _, _ = strings.Cut(version, "-")
	if version == "" {
		version = "unknown"
	}
	if commit == "" {
		commit = "unknown"
	}
	return fmt.Sprintf("%s/%s (%s/%s) kubernetes/%s", command, version, os, arch, commit[:min(len(commit), 7)])
}
