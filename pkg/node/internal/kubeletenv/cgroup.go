package kubeletenv

import (
	"strconv"

	"github.com/opencontainers/cgroups"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Constants of pkg/kubelet/cm/helpers_linux.go.
const (
	quotaPeriod    = 100000 // cpu.max period, µs
	minQuota       = 1000   // the kernel's minimum quota, µs
	minShares      = 2
	maxShares      = 262144
	sharesPerCPU   = 1024
	milliCPUPerCPU = 1000
)

// CgroupPath is where a container sees its own cgroup (cgroup v2 with a
// cgroup namespace).
const CgroupPath = "/sys/fs/cgroup"

// CgroupFiles are the cgroup v2 interface files of a Linux container that
// the e2e resize and pod-level-resources tests read
// (test/e2e/common/node/framework/cgroups), keyed by container path:
//   - cpu.max: "<quota> 100000", quota = milliCPU*100000/1000, at least
//     1000 (MilliCPUToQuota), or "max 100000" without a limit;
//   - cpu.weight: the weight runc derives from the kubelet's cpu shares
//     (MilliCPUToShares of the request, of the limit when only that is
//     set, 2 for none), with runc's current shares-to-weight conversion
//     (opencontainers/cgroups ConvertCPUSharesToCgroupV2Value; the tests
//     also accept the older linear one);
//   - memory.max: the limit in bytes, or "max".
//
// Unset container limits fall back to pod-level limits, as the kubelet's
// GetLimits does. Pass the container as actuated (its resources after an
// in-place resize). The node is not consulted today (cgroup v2 is
// assumed, as on every current node image).
func CgroupFiles(pod *corev1.Pod, container *corev1.Container, _ Node) map[string][]byte {
	limits := container.Resources.Limits
	var podLimits corev1.ResourceList
	if pod.Spec.Resources != nil {
		podLimits = pod.Spec.Resources.Limits
	}
	cpuLim := quantityOr(limits, podLimits, corev1.ResourceCPU)
	memLim := quantityOr(limits, podLimits, corev1.ResourceMemory)
	cpuReq := container.Resources.Requests.Cpu()
	if cpuReq.IsZero() {
		if l, ok := limits[corev1.ResourceCPU]; ok {
			cpuReq = &l
		}
	}
	cpuMax := "max " + strconv.Itoa(quotaPeriod)
	if !cpuLim.IsZero() {
		cpuMax = strconv.FormatInt(milliCPUToQuota(cpuLim.MilliValue()), 10) + " " + strconv.Itoa(quotaPeriod)
	}
	memMax := "max"
	if !memLim.IsZero() {
		memMax = strconv.FormatInt(memLim.Value(), 10)
	}
	weight := cgroups.ConvertCPUSharesToCgroupV2Value(milliCPUToShares(cpuReq.MilliValue()))
	return map[string][]byte{
		CgroupPath + "/cpu.max":    []byte(cpuMax + "\n"),
		CgroupPath + "/cpu.weight": []byte(strconv.FormatUint(weight, 10) + "\n"),
		CgroupPath + "/memory.max": []byte(memMax + "\n"),
	}
}

func quantityOr(primary, fallback corev1.ResourceList, name corev1.ResourceName) resource.Quantity {
	if q, ok := primary[name]; ok && !q.IsZero() {
		return q
	}
	if q, ok := fallback[name]; ok {
		return q
	}
	return resource.Quantity{}
}

func milliCPUToQuota(milli int64) int64 {
	q := milli * quotaPeriod / milliCPUPerCPU
	if q < minQuota {
		q = minQuota
	}
	return q
}

func milliCPUToShares(milli int64) uint64 {
	if milli == 0 {
		return minShares
	}
	s := milli * sharesPerCPU / milliCPUPerCPU
	switch {
	case s < minShares:
		return minShares
	case s > maxShares:
		return maxShares
	}
	return uint64(s)
}
