package windows

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
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

// Container runtimes named by the runtime-dependent rules (KLT-10).
const (
	RuntimeContainerd = "containerd"
	RuntimeDocker     = "docker"
)

// DockerShutdownWait is how long Docker on Windows waits after sending
// CTRL_SHUTDOWN_EVENT before it kills the container (LIM-14). The value is the
// registry default inside the image (WaitToKillServiceTimeout), not something
// the pod can change.
const DockerShutdownWait int64 = 5

// GracePeriod implements rule LIM-14: the seconds a container really gets to
// stop when the pod asks for `requested`. containerd honours the full period;
// Docker kills after at most 5 seconds. Negative requests count as zero.
func GracePeriod(runtime string, requested int64) int64 {
	if requested < 0 {
		requested = 0
	}
	if IsDocker(runtime) && requested > DockerShutdownWait {
		return DockerShutdownWait
	}
	return requested
}

// IsDocker reports whether a runtime name or version string
// ("docker", "docker://19.3.14") is Docker (dockershim, Docker EE or Mirantis).
func IsDocker(runtime string) bool {
	r := strings.ToLower(strings.TrimSpace(runtime))
	return r == RuntimeDocker || strings.HasPrefix(r, "docker://")
}

// Runtime handlers of the default configurations (KLT-11): containerd's
// process-isolation runtime on Windows and runc on Linux; the one name
// cri-dockerd accepts.
const (
	HandlerProcess = "runhcs-wcow-process"
	HandlerRunc    = "runc"
	HandlerDocker  = "docker"
)

// RuntimeHandlers are the RuntimeClass handlers a node's runtime accepts
// as configured by default (KLT-11); the empty handler, the default
// runtime, is always accepted.
func RuntimeHandlers(runtime, os string) []string {
	switch {
	case IsDocker(runtime):
		return []string{HandlerDocker}
	case os == "windows":
		return []string{HandlerProcess}
	default:
		return []string{HandlerRunc}
	}
}

// HandlerError is the runtime's refusal of a sandbox whose RuntimeClass
// handler it has no runtime for (KLT-11), as the kubelet's
// FailedCreatePodSandBox event carries it; "" when the handler is one
// the runtime has.
func HandlerError(runtime, os, handler string) string {
	if handler == "" || slices.Contains(RuntimeHandlers(runtime, os), handler) {
		return ""
	}
	if IsDocker(runtime) {
		return fmt.Sprintf("rpc error: code = Unknown desc = RuntimeHandler %q not supported", handler)
	}
	return fmt.Sprintf("rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for %q is configured", handler)
}
