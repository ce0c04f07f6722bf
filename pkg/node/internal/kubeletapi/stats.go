package kubeletapi

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

// Summary is what GET /stats/summary answers for n at now; the node's
// own metrics agents read the same numbers (pkg/node's machine stats).
func (s *Server) Summary(n Node, now time.Time) *statsapi.Summary { return s.summary(n, now) }

// summary is GET /stats/summary: the node and every pod with a running
// container, shaped as the kubelet's CRI stats provider reports them on the
// node's OS.
func (s *Server) summary(n Node, now time.Time) *statsapi.Summary {
	facts := n.Facts()
	win := facts.Windows
	out := &statsapi.Summary{Pods: []statsapi.PodStats{}}
	var cpu, mem uint64
	fs := fsStats(metav1.NewTime(now), facts.Capacity)
	for _, pod := range n.Pods() {
		ps, ok := s.podStats(pod, win, fs, now)
		if !ok {
			continue
		}
		out.Pods = append(out.Pods, ps)
		cpu += *ps.CPU.UsageNanoCores
		if ps.Memory != nil {
			mem += *ps.Memory.WorkingSetBytes
		}
	}
	out.Node = s.nodeStats(facts, cpu, mem, now)
	return out
}

// podStats is one pod's entry; false when none of its containers runs.
// fs is the node's root filesystem, where the container logs live.
func (s *Server) podStats(pod *corev1.Pod, win bool, fs *statsapi.FsStats, now time.Time) (statsapi.PodStats, bool) {
	usage := podUsage(pod)
	if len(usage) == 0 {
		return statsapi.PodStats{}, false
	}
	t := metav1.NewTime(now)
	ps := statsapi.PodStats{
		PodRef:     statsapi.PodReference{Name: pod.Name, Namespace: pod.Namespace, UID: string(pod.UID)},
		Containers: []statsapi.ContainerStats{},
	}
	if pod.Status.StartTime != nil {
		ps.StartTime = *pod.Status.StartTime
	}
	var nanoCores, coreNs, ws uint64
	for _, u := range usage {
		cs := statsapi.ContainerStats{
			Name:      u.name,
			StartTime: metav1.NewTime(u.started),
			CPU:       cpuStats(t, u.nanoCores, u.coreNanoSeconds(now)),
			// A HostProcess container's job object has a working set too.
			Memory: memoryStats(t, u.memory, 0, win),
			Logs:   logStats(t, fs),
		}
		ps.Containers = append(ps.Containers, cs)
		nanoCores += u.nanoCores
		coreNs += u.coreNanoSeconds(now)
		ws += u.memory
	}
	ps.CPU = cpuStats(t, nanoCores, coreNs)
	ps.Memory = memoryStats(t, ws, 0, win)
	if !pod.Spec.HostNetwork {
		ps.Network = networkStats(t, podInterface(pod, win, s.cfg.Network), uint64(max(now.Sub(ps.StartTime.Time), 0).Seconds())*podNetBytesPerSec)
	}
	return ps, true
}

// nodeStats is the node's entry: its pods plus the host's own share.
func (s *Server) nodeStats(facts Facts, podCPU, podMem uint64, now time.Time) statsapi.NodeStats {
	t := metav1.NewTime(now)
	up := max(now.Sub(s.started), 0)
	win, capacity := facts.Windows, facts.Capacity
	nanoCores := podCPU + hostCPUNanoCores
	ws := podMem + hostMemoryBytes
	memCap := uint64(max(quantityOf(capacity, corev1.ResourceMemory), 0))
	ns := statsapi.NodeStats{
		NodeName:  facts.Name,
		StartTime: metav1.NewTime(s.started),
		CPU:       cpuStats(t, nanoCores, cpuTime(nanoCores, up)),
		Memory:    memoryStats(t, ws, memCap, win),
		Network:   networkStats(t, nodeInterface(win), uint64(up.Seconds())*hostNetBytesPerSec),
		Fs:        fsStats(t, capacity),
		SystemContainers: []statsapi.ContainerStats{{
			Name: statsapi.SystemContainerPods, StartTime: metav1.NewTime(s.started),
			CPU: cpuStats(t, podCPU, cpuTime(podCPU, up)), Memory: memoryStats(t, podMem, memCap, win),
		}},
	}
	ns.Runtime = &statsapi.RuntimeStats{ImageFs: ns.Fs, ContainerFs: ns.Fs}
	if win {
		// The Windows kubelet adds the system-wide commit charge as a
		// system container of its own.
		commit := ws + ws/4
		ns.SystemContainers = append(ns.SystemContainers, statsapi.ContainerStats{
			Name: statsapi.SystemContainerWindowsGlobalCommitMemory, StartTime: metav1.NewTime(s.started),
			Memory: &statsapi.MemoryStats{Time: t, UsageBytes: &commit, AvailableBytes: ptrTo(2*memCap - min(commit, 2*memCap))},
		})
	}
	return ns
}

func cpuStats(t metav1.Time, nanoCores, coreNs uint64) *statsapi.CPUStats {
	return &statsapi.CPUStats{Time: t, UsageNanoCores: &nanoCores, UsageCoreNanoSeconds: &coreNs}
}

// memoryStats reports a working set. Windows has no RSS and counts page
// faults, and its usageBytes is the commit charge (at least the working
// set); Linux reports RSS. capacity > 0 adds availableBytes.
func memoryStats(t metav1.Time, ws, capacity uint64, win bool) *statsapi.MemoryStats {
	m := &statsapi.MemoryStats{Time: t, WorkingSetBytes: &ws}
	if capacity > 0 {
		m.AvailableBytes = ptrTo(capacity - min(ws, capacity))
	}
	if win {
		m.UsageBytes = ptrTo(ws + ws/4)
		m.PageFaults = ptrTo(ws / 4096)
	} else {
		m.UsageBytes = ptrTo(ws)
		m.RSSBytes = ptrTo(ws * 3 / 4)
	}
	return m
}

func networkStats(t metav1.Time, name string, bytes uint64) *statsapi.NetworkStats {
	iface := statsapi.InterfaceStats{Name: name, RxBytes: ptrTo(bytes), TxBytes: ptrTo(bytes / 2)}
	return &statsapi.NetworkStats{Time: t, InterfaceStats: iface, Interfaces: []statsapi.InterfaceStats{iface}}
}

// nodeInterface is the host's adapter: on Windows the HNS management vNIC
// that flannel's network puts in front of the physical adapter.
func nodeInterface(win bool) string {
	if win {
		return "vEthernet (Ethernet)"
	}
	return "eth0"
}

// podInterface is a pod's network interface: on Windows the HNS endpoint,
// which the CNI plugin names <sandbox ID>_<network name>.
func podInterface(pod *corev1.Pod, win bool, network string) string {
	if win {
		return SandboxID(pod) + "_" + network
	}
	return "eth0"
}

func fsStats(t metav1.Time, capacity corev1.ResourceList) *statsapi.FsStats {
	total := uint64(defaultFsCapacity)
	if v := quantityOf(capacity, corev1.ResourceEphemeralStorage); v > 0 {
		total = uint64(v)
	}
	used := min(uint64(hostFsUsedBytes), total)
	return &statsapi.FsStats{Time: t, CapacityBytes: &total, UsedBytes: &used, AvailableBytes: ptrTo(total - used)}
}

// containerLogBytes is the size of one container's log file on disk: the
// runtime's first block of it.
const containerLogBytes = 4096

// logStats are a container's log figures as the CRI stats provider reports
// them: the capacity and free space of the filesystem holding the logs, and
// the log files' own use (one file, one inode).
func logStats(t metav1.Time, fs *statsapi.FsStats) *statsapi.FsStats {
	inodes := max(*fs.CapacityBytes/inodeBytes, 1)
	used := max(*fs.UsedBytes/inodeBytes, 1)
	return &statsapi.FsStats{
		Time: t, AvailableBytes: ptrTo(*fs.AvailableBytes), CapacityBytes: ptrTo(*fs.CapacityBytes),
		UsedBytes: ptrTo(uint64(containerLogBytes)), Inodes: &inodes, InodesFree: ptrTo(inodes - min(used, inodes)), InodesUsed: ptrTo(uint64(1)),
	}
}

// inodeBytes is the bytes-per-inode ratio of the emulated filesystems
// (mkfs.ext4's default).
const inodeBytes = 16384

func ptrTo[T any](v T) *T { return &v }
