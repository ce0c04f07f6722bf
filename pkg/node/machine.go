package node

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/emu/program"
)

// machine is what a program on the node reads of the machine it runs on
// (a metrics agent such as windows_exporter): taken from the kubelet's own
// /stats/summary at the same moment, so the agent's series and `kubectl
// top` never disagree.
func (n *emuNode) machine() program.MachineStats {
	now := n.agent.clock.Now()
	sum := n.agent.kubelet.Summary(kubeletNode{n}, now)
	cap := n.spec.capacity()
	m := program.MachineStats{
		Boot:              sum.Node.StartTime.Time,
		LogicalProcessors: int(cap.Cpu().Value()),
		MemoryBytes:       uint64(cap.Memory().Value()),
		Services:          n.services(sum.Node.StartTime.Time),
	}
	if mem := sum.Node.Memory; mem != nil && mem.AvailableBytes != nil {
		m.MemoryAvailableBytes = *mem.AvailableBytes
	}
	if cpu := sum.Node.CPU; cpu != nil && cpu.UsageCoreNanoSeconds != nil {
		m.CPUBusy = time.Duration(*cpu.UsageCoreNanoSeconds)
	}
	if net := sum.Node.Network; net != nil {
		m.Adapter = program.Adapter{Description: net.Name, IP: n.spec.ip,
			BytesReceived: ptr.Deref(net.RxBytes, 0), BytesSent: ptr.Deref(net.TxBytes, 0)}
	}
	kn := kubeletNode{n}
	for _, ps := range sum.Pods {
		pod := kn.Pod(ps.PodRef.Namespace, ps.PodRef.Name)
		for _, cs := range ps.Containers {
			c := containerStats(ps, cs)
			c.ID = n.containerID(pod, cs.Name)
			m.Containers = append(m.Containers, c)
		}
	}
	return m
}

// containerStats is one container of the summary as the runtime's
// statistics report it.
func containerStats(ps statsapi.PodStats, cs statsapi.ContainerStats) program.ContainerStats {
	c := program.ContainerStats{
		Namespace: ps.PodRef.Namespace, Pod: ps.PodRef.Name, Container: cs.Name,
		HostProcess: ps.Network == nil,
	}
	if cs.CPU != nil && cs.CPU.UsageCoreNanoSeconds != nil {
		c.CPU = time.Duration(*cs.CPU.UsageCoreNanoSeconds)
		c.CPUUser = c.CPU * 3 / 4
	}
	if cs.Memory != nil {
		c.WorkingSetBytes = ptr.Deref(cs.Memory.WorkingSetBytes, 0)
		c.CommitBytes = ptr.Deref(cs.Memory.UsageBytes, 0)
		c.CommitPeakBytes = c.CommitBytes
	}
	if ps.Network != nil {
		c.Interface = ps.Network.Name
		c.BytesReceived, c.BytesSent = ptr.Deref(ps.Network.RxBytes, 0), ptr.Deref(ps.Network.TxBytes, 0)
	}
	return c
}

// services are the node's own services: the runtime and the kubelet,
// running since the node started.
func (n *emuNode) services(boot time.Time) []program.Service {
	rt := n.spec.host.Runtime()
	return []program.Service{
		{Name: rt.Name, DisplayName: rt.Name, State: "running", StartMode: "auto", RunAs: "LocalSystem", Started: boot},
		{Name: "kubelet", DisplayName: "kubelet", State: "running", StartMode: "auto", RunAs: "LocalSystem", Started: boot},
	}
}

// containerID is the running container's ID as the pod's status shows
// it, without the runtime's scheme (cri.Runtime.IDPrefix).
func (n *emuNode) containerID(pod *corev1.Pod, name string) string {
	if pod == nil {
		return ""
	}
	for _, st := range pod.Status.ContainerStatuses {
		if st.Name == name {
			return strings.TrimPrefix(st.ContainerID, n.spec.host.Runtime().IDPrefix())
		}
	}
	return ""
}
