package podstatus

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/winkube/winkube/pkg/windows/kubelet"
)

// The resources part of the pod status, as the kubelet's
// convertToAPIContainerStatuses and convertToAPIPodLevelResourcesStatus
// (pkg/kubelet/kubelet_pods.go) fill it in 1.36, where
// InPlacePodVerticalScaling is GA and InPlacePodLevelResourcesVerticalScaling
// is on by default.

// minMilliCPULimit is the smallest CPU limit the runtime can apply (the
// kubelet's cm.MinMilliCPULimit): at or below it the allocated value is
// shown, to spare users a confusing rounding.
const minMilliCPULimit = 10

// minShares is the smallest CPU request in millicores that cpu.shares can
// tell apart (cm.MinShares), shown as allocated for the same reason.
const minShares = 2

// PodResources fills resources and allocatedResources of the pod from
// alloc, the pod with every container's resources as allocated.
func PodResources(st *corev1.PodStatus, alloc *corev1.Pod) {
	req := resourcehelper.PodRequests(alloc, resourcehelper.PodResourcesOptions{})
	lim := resourcehelper.PodLimits(alloc, resourcehelper.PodResourcesOptions{})
	if len(req) > 0 {
		st.AllocatedResources = req
	}
	res := &corev1.ResourceRequirements{}
	if alloc.Spec.Resources != nil {
		res = alloc.Spec.Resources.DeepCopy()
	}
	if len(req) > 0 {
		res.Requests = req
	}
	if len(lim) > 0 {
		res.Limits = lim
	}
	st.Resources = res
}

// containerResources sets, for every container the runtime has created,
// the allocated requests and the resources it runs with: the allocation,
// except for a running container whose resize the runtime has not applied
// yet (actual: what the runtime still runs the container with; nil:
// nothing). Containers not created yet carry neither, as on a real node.
// windows and cpus are the node's OS and processor count.
func ContainerResources(statuses []corev1.ContainerStatus, ctrs []Container, actual Actual, windows bool, cpus int) {
	for i := range statuses {
		if i >= len(ctrs) {
			return
		}
		c := ctrs[i]
		s := &statuses[i]
		if !created(s) {
			continue
		}
		alloc := c.Spec.Resources
		s.AllocatedResources = alloc.Requests.DeepCopy()
		runs := alloc
		if actual != nil && s.State.Running != nil {
			if a, ok := actual(c.Spec.Name, s.ContainerID); ok {
				runs = a
			}
		}
		s.Resources = reported(alloc, runs, s.State.Running != nil, windows, cpus)
	}
}

// Actual is what the runtime runs a container instance (name and ID)
// with while it has not applied a resize yet; false: its allocation.
type Actual func(name, containerID string) (corev1.ResourceRequirements, bool)

// created reports whether the runtime knows the container: it ran, runs,
// or is waiting to run again.
func created(s *corev1.ContainerStatus) bool {
	return s.ContainerID != "" || s.State.Running != nil || s.State.Terminated != nil || s.LastTerminationState.Terminated != nil
}

// reported is what the status shows for a container: the allocation's
// shape (limits only when allocated has limits, requests likewise) with
// the values the runtime reports for a running container. Linux runtimes
// report CPU shares, quota and the memory limit, which convert back
// exactly; Windows reports the HCS CPU maximum, whose integer steps can
// round the CPU limit, and the memory limit.
func reported(alloc, actual corev1.ResourceRequirements, running, win bool, cpus int) *corev1.ResourceRequirements {
	out := alloc.DeepCopy()
	if !running {
		return out
	}
	if out.Limits != nil {
		if q, ok := actual.Limits[corev1.ResourceCPU]; ok {
			if win {
				q = windowsCPULimit(q, int64(cpus))
			}
			if q.MilliValue() > minMilliCPULimit || out.Limits.Cpu().MilliValue() > minMilliCPULimit {
				out.Limits[corev1.ResourceCPU] = q
			}
		}
		if q, ok := actual.Limits[corev1.ResourceMemory]; ok {
			out.Limits[corev1.ResourceMemory] = q
		}
	}
	if out.Requests != nil && !win {
		if q, ok := actual.Requests[corev1.ResourceCPU]; ok && (q.MilliValue() > minShares || out.Requests.Cpu().MilliValue() > minShares) {
			out.Requests[corev1.ResourceCPU] = q
		}
	}
	return out
}

// windowsCPULimit is a CPU limit as the Windows runtime reports it back:
// the HCS CPU maximum (KLT-5) times the processor count over ten.
func windowsCPULimit(q resource.Quantity, cpus int64) resource.Quantity {
	if cpus < 1 {
		cpus = 1
	}
	m := kubelet.CPUMaximum(q.MilliValue(), cpus) * cpus / 10
	return *resource.NewMilliQuantity(m, resource.DecimalSI)
}

// IsResizeCondition reports whether t is one of the resize conditions.
func IsResizeCondition(t corev1.PodConditionType) bool {
	return t == corev1.PodResizePending || t == corev1.PodResizeInProgress
}
