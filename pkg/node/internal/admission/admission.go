// Package admission is the emulated kubelet's pod admission (KLT-4): the
// OS check, then the scheduler predicates the kubelet re-runs (node
// affinity, taints, host ports, resources), in its order and words.
package admission

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
	schedcorev1 "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/winkube/winkube/pkg/windows/kubelet"
)

// Admission reasons and messages of the kubelet's predicate admit handler
// that pkg/windows does not own: the scheduler predicates the kubelet re-runs
// (KLT-4). The OS checks and the resource wording live in pkg/windows.
const (
	reasonNodeAffinity    = "NodeAffinity"
	reasonNodePorts       = "NodePorts"
	reasonTaintToleration = "TaintToleration"

	descNodeAffinity = "node(s) didn't match Pod's node affinity/selector"
	descNodePorts    = "node(s) didn't have free ports for the requested pod ports"
	descTaints       = "node(s) had taints that the pod didn't tolerate"

	// RejectedPrefix starts the pod status message of a rejected pod.
	RejectedPrefix = "Pod was rejected: "
)

// Result is the outcome of admission; Reason and Message are empty when
// the pod is admitted.
type Result struct {
	Admit   bool
	Reason  string
	Message string
}

func admitted() Result { return Result{Admit: true} }

func rejected(reason, message string) Result {
	return Result{Reason: reason, Message: message}
}

// Admit runs the kubelet's admission checks in its order; the first failure
// wins (KLT-4). node is the node as the API has it (nil when it cannot be
// read), nodeOS the OS the node really runs, and others the pods already
// admitted to the node and not yet terminal.
func Admit(pod *corev1.Pod, node *corev1.Node, nodeOS string, others []*corev1.Pod) Result {
	if node == nil {
		return rejected(kubelet.ReasonInvalidNodeInfo, kubelet.MessageInvalidNodeInfo)
	}
	// Checks that preemption cannot help come first.
	if reason, message := kubelet.AdmitPodOS(pod.Labels, pod.Spec.OS, nodeOS); reason != "" {
		return rejected(reason, message)
	}
	return generalPredicates(pod, node, others)
}

// generalPredicates mirrors the scheduler's AdmissionCheck as the kubelet
// runs it: resources, node affinity, host ports, then NoExecute taints.
func generalPredicates(pod *corev1.Pod, node *corev1.Node, others []*corev1.Pod) Result {
	if r := FitResources(pod, node, others); !r.Admit {
		return r
	}
	if ok, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node); !ok {
		return predicateFailed(reasonNodeAffinity, descNodeAffinity)
	}
	if hostPortsConflict(pod, others) {
		return predicateFailed(reasonNodePorts, descNodePorts)
	}
	_, untolerated := schedcorev1.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, pod.Spec.Tolerations,
		func(t *corev1.Taint) bool { return t.Effect == corev1.TaintEffectNoExecute }, false)
	if untolerated {
		return predicateFailed(reasonTaintToleration, descTaints)
	}
	return admitted()
}

// predicateFailed words a failed predicate as the kubelet's
// PredicateFailureError does.
func predicateFailed(name, desc string) Result {
	return rejected(name, fmt.Sprintf("Predicate %s failed: %s", name, desc))
}

// FitResources checks the pod count, then cpu, memory, ephemeral-storage and
// the remaining resources in name order, against allocatable.
func FitResources(pod *corev1.Pod, node *corev1.Node, others []*corev1.Pod) Result {
	alloc := node.Status.Allocatable
	if maxPods := alloc.Pods().Value(); int64(len(others))+1 > maxPods {
		return outOf(corev1.ResourcePods, 1, int64(len(others)), maxPods)
	}
	req := podRequests(pod, alloc)
	used := corev1.ResourceList{}
	for _, o := range others {
		for name, q := range podRequests(o, alloc) {
			add(used, name, q)
		}
	}
	for _, name := range resourceOrder(req) {
		want := amount(name, req[name])
		if want == 0 {
			continue
		}
		have, usedAmt := amount(name, alloc[name]), amount(name, used[name])
		if want > have-usedAmt {
			return outOf(name, want, usedAmt, have)
		}
	}
	return admitted()
}

// podRequests is the pod's effective requests (init containers, sidecars and
// overhead included), without extended resources the node does not have:
// the kubelet leaves those to cluster-level resource handling.
func podRequests(pod *corev1.Pod, alloc corev1.ResourceList) corev1.ResourceList {
	req := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	for name := range req {
		if _, ok := alloc[name]; !ok && isExtended(name) {
			delete(req, name)
		}
	}
	return req
}

// isExtended reports whether a resource is an extended resource: a
// domain-qualified name outside kubernetes.io.
func isExtended(name corev1.ResourceName) bool {
	s := string(name)
	return strings.Contains(s, "/") && !strings.Contains(s, "kubernetes.io/")
}

// resourceOrder lists cpu, memory and ephemeral-storage first, as the
// scheduler checks them, then everything else sorted by name.
func resourceOrder(req corev1.ResourceList) []corev1.ResourceName {
	first := []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage}
	var rest []corev1.ResourceName
	for name := range req {
		if name != corev1.ResourceCPU && name != corev1.ResourceMemory && name != corev1.ResourceEphemeralStorage && name != corev1.ResourcePods {
			rest = append(rest, name)
		}
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i] < rest[j] })
	return append(first, rest...)
}

// amount is the unit the kubelet's messages use: millicores for cpu, plain
// values for everything else.
func amount(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

func add(list corev1.ResourceList, name corev1.ResourceName, q resource.Quantity) {
	sum := list[name]
	sum.Add(q)
	list[name] = sum
}

// outOf words an insufficient resource as the kubelet does: reason OutOfcpu,
// OutOfmemory, OutOfpods, OutOfephemeral-storage or OutOf<name>.
func outOf(name corev1.ResourceName, requested, used, capacity int64) Result {
	return rejected(kubelet.InsufficientResource(name, requested, used, capacity))
}

// hostPortsConflict reports whether the pod wants a host port another pod
// on the node already holds (same protocol and port, overlapping host IP).
func hostPortsConflict(pod *corev1.Pod, others []*corev1.Pod) bool {
	taken := map[string][]string{}
	for _, o := range others {
		for _, p := range hostPorts(o) {
			key := fmt.Sprintf("%s/%d", p.Protocol, p.HostPort)
			taken[key] = append(taken[key], p.HostIP)
		}
	}
	for _, p := range hostPorts(pod) {
		for _, ip := range taken[fmt.Sprintf("%s/%d", p.Protocol, p.HostPort)] {
			if ip == p.HostIP || isAny(ip) || isAny(p.HostIP) {
				return true
			}
		}
	}
	return false
}

func hostPorts(pod *corev1.Pod) []corev1.ContainerPort {
	var out []corev1.ContainerPort
	for _, c := range append(append([]corev1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...) {
		for _, p := range c.Ports {
			if p.HostPort <= 0 {
				continue
			}
			if p.Protocol == "" {
				p.Protocol = corev1.ProtocolTCP
			}
			out = append(out, p)
		}
	}
	return out
}

func isAny(ip string) bool { return ip == "" || ip == "0.0.0.0" || ip == "::" }
