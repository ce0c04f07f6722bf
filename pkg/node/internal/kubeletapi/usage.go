package kubeletapi

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/winkube/winkube/pkg/apis/annotations"
)

// Without an annotation a container uses half of what it requests, so an
// HPA that targets the usual 50% utilisation holds its replicas steady.
// A container without a request uses an idle figure, never above its limit.
const (
	idleCPUNanoCores   = 1_000_000        // 1m: an idle Windows service container
	idleMemoryBytes    = 24 << 20         // a nanoserver process tree at rest
	hostCPUNanoCores   = 150_000_000      // the node's own services (kubelet, containerd, HNS, ...)
	hostMemoryBytes    = 1 << 30          // Windows Server Core and the node's services
	hostFsUsedBytes    = 12 << 30         // the OS volume's own files and pulled images
	hostNetBytesPerSec = 2_000            // background traffic on the node's vNIC
	podNetBytesPerSec  = 500              // background traffic on a pod's endpoint
	defaultFsCapacity  = int64(127 << 30) // a Windows VM's default OS disk
)

// containerUsage is what one running container uses at a moment.
type containerUsage struct {
	name      string
	started   time.Time
	nanoCores uint64 // CPU in billionths of a core
	memory    uint64 // working set in bytes
}

// coreNanoSeconds is the CPU time used since the container started.
func (u containerUsage) coreNanoSeconds(now time.Time) uint64 {
	return cpuTime(u.nanoCores, now.Sub(u.started))
}

// cpuTime is the CPU time, in core-nanoseconds, that a steady use of
// nanoCores adds up to over d. Counted in whole seconds it read 0 for a
// container less than a second old, where a real one has used CPU to start
// (the upstream Windows stats test reads the stats as soon as its pods
// are ready and fails on a zero).
func cpuTime(nanoCores uint64, d time.Duration) uint64 {
	return uint64(float64(nanoCores) * max(d, 0).Seconds())
}

// podUsage is the usage of a pod's running containers; nil when none runs.
func podUsage(pod *corev1.Pod) []containerUsage {
	running := runningContainers(pod)
	if len(running) == 0 {
		return nil
	}
	cpu := shares(pod, running, corev1.ResourceCPU, annotations.UsageCPU, idleCPUNanoCores)
	mem := shares(pod, running, corev1.ResourceMemory, annotations.UsageMemory, idleMemoryBytes)
	out := make([]containerUsage, len(running))
	for i, c := range running {
		out[i] = containerUsage{name: c.spec.Name, started: c.started, nanoCores: cpu[i], memory: mem[i]}
	}
	return out
}

type runningContainer struct {
	spec    *corev1.Container
	started time.Time
}

// runningContainers are the pod's app containers the status shows running.
func runningContainers(pod *corev1.Pod) []runningContainer {
	started := map[string]time.Time{}
	for _, s := range pod.Status.ContainerStatuses {
		if s.State.Running != nil {
			started[s.Name] = s.State.Running.StartedAt.Time
		}
	}
	var out []runningContainer
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if t, ok := started[c.Name]; ok {
			out = append(out, runningContainer{spec: c, started: t})
		}
	}
	return out
}

// shares divides the annotated pod total among the containers, or gives
// each half its request (an idle figure without one). A limit caps both,
// as throttling caps CPU and the job object caps memory.
// CPU is counted in nano-cores, memory in bytes.
func shares(pod *corev1.Pod, cs []runningContainer, name corev1.ResourceName, annotation string, idle int64) []uint64 {
	out := make([]uint64, len(cs))
	total, annotated := annotatedTotal(pod, annotation, name)
	var sum int64
	for _, c := range cs {
		sum += quantityOf(c.spec.Resources.Requests, name)
	}
	for i, c := range cs {
		req := quantityOf(c.spec.Resources.Requests, name)
		var v int64
		switch {
		case annotated && sum > 0:
			v = total * req / sum
		case annotated:
			v = total / int64(len(cs))
		case req > 0:
			v = req / 2
		default:
			v = idle
		}
		if limit := quantityOf(c.spec.Resources.Limits, name); limit > 0 && v > limit {
			v = limit
		}
		out[i] = uint64(max(v, 0))
	}
	return out
}

// annotatedTotal reads a usage annotation with the parser lint and the
// webhook use (WK-5, WK-6); a value it refuses never reaches here, since
// the node does not start the pod's containers then.
func annotatedTotal(pod *corev1.Pod, annotation string, name corev1.ResourceName) (int64, bool) {
	q, set, err := annotations.UsageOf(pod.Annotations, annotation)
	if err != nil || !set {
		return 0, false
	}
	return scaled(q, name), true
}

// quantityOf is a resource in nano-cores (CPU) or bytes (anything else).
func quantityOf(list corev1.ResourceList, name corev1.ResourceName) int64 {
	q, ok := list[name]
	if !ok {
		return 0
	}
	return scaled(q, name)
}

func scaled(q resource.Quantity, name corev1.ResourceName) int64 {
	if name == corev1.ResourceCPU {
		return q.ScaledValue(resource.Nano)
	}
	return q.Value()
}

// SandboxID is the pod sandbox's 64-hex container ID, stable per pod UID.
func SandboxID(pod *corev1.Pod) string {
	h := sha256.Sum256([]byte("sandbox/" + string(pod.UID)))
	return hex.EncodeToString(h[:])
}
