package winexporter

import (
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/winkube/winkube/pkg/emu/program"
)

var (
	netRecv        = desc("net", "bytes_received_total", "(Network.BytesReceivedPerSec)", "nic")
	netSent        = desc("net", "bytes_sent_total", "(Network.BytesSentPerSec)", "nic")
	netBytes       = desc("net", "bytes_total", "(Network.BytesTotalPerSec)", "nic")
	netPktRecv     = desc("net", "packets_received_total", "(Network.PacketsReceivedPerSec)", "nic")
	netPktSent     = desc("net", "packets_sent_total", "(Network.PacketsSentPerSec)", "nic")
	netPkts        = desc("net", "packets_total", "(Network.PacketsPerSec)", "nic")
	netBandwidth   = desc("net", "current_bandwidth_bytes", "(Network.CurrentBandwidth)", "nic")
	netQueue       = desc("net", "output_queue_length_packets", "(Network.OutputQueueLength)", "nic")
	netOutDiscard  = desc("net", "packets_outbound_discarded_total", "(Network.PacketsOutboundDiscarded)", "nic")
	netOutErrors   = desc("net", "packets_outbound_errors_total", "(Network.PacketsOutboundErrors)", "nic")
	netInDiscard   = desc("net", "packets_received_discarded_total", "(Network.PacketsReceivedDiscarded)", "nic")
	netInErrors    = desc("net", "packets_received_errors_total", "(Network.PacketsReceivedErrors)", "nic")
	netInUnknown   = desc("net", "packets_received_unknown_total", "(Network.PacketsReceivedUnknown)", "nic")
	netAddressInfo = desc("net", "nic_address_info", "A metric with a constant '1' value labeled with the network interface's address information.", "nic", "address", "family")
	netOperStatus  = desc("net", "nic_operation_status", "The operational status for the interface as defined in RFC 2863 as IfOperStatus.", "nic", "status")
	netInfo        = desc("net", "nic_info", "A metric with a constant '1' value labeled with the network interface's general information.", "nic", "friendly_name", "mac")
)

// operStatuses are IfOperStatus's names; the adapter is up.
var operStatuses = []string{"up", "down", "testing", "unknown", "dormant", "not present", "lower layer down"}

// nicName is a performance-counter instance name as the net collector
// labels it.
var nicName = strings.NewReplacer("(", "[", ")", "]", "#", "_")

// podAddress is implemented by a program.Net that knows its address.
type podAddress interface{ PodIP() string }

// adapter is the container's view of its network adapter: the node's
// when Sys.Machine says, else the vEthernet adapter HNS gives the
// node (a HostProcess container) or the container's endpoint, with the
// address of Sys.Net and no traffic counted.
func (s *scrape) adapter() program.Adapter {
	if s.machine != nil && s.machine.Adapter.Description != "" {
		return s.machine.Adapter
	}
	a := program.Adapter{Description: "Hyper-V Virtual Ethernet Container Adapter", MAC: "00-15-5D-00-00-01", BandwidthBits: 10_000_000_000}
	if s.hostProc {
		a.Description = "Hyper-V Virtual Ethernet Adapter"
	}
	if n, ok := s.sys.Net.(podAddress); ok {
		a.IP = n.PodIP()
	}
	return a
}

// collectNet reports the adapter, if --collector.net.nic-include and
// -exclude let it through.
func collectNet(ch chan<- prometheus.Metric, s *scrape) error {
	a := s.adapter()
	nic := nicName.Replace(a.Description)
	if !s.c.nic.match(nic) {
		return nil
	}
	counter(ch, netRecv, float64(a.BytesReceived), nic)
	counter(ch, netSent, float64(a.BytesSent), nic)
	counter(ch, netBytes, float64(a.BytesReceived+a.BytesSent), nic)
	counter(ch, netPktRecv, float64(a.PacketsReceived), nic)
	counter(ch, netPktSent, float64(a.PacketsSent), nic)
	counter(ch, netPkts, float64(a.PacketsReceived+a.PacketsSent), nic)
	gauge(ch, netBandwidth, float64(a.BandwidthBits/8), nic)
	gauge(ch, netQueue, 0, nic)
	for _, d := range []*prometheus.Desc{netOutDiscard, netOutErrors, netInDiscard, netInErrors, netInUnknown} {
		counter(ch, d, 0, nic)
	}
	gauge(ch, netInfo, 1, nic, "vEthernet (Ethernet)", strings.ReplaceAll(a.MAC, "-", ":"))
	for _, st := range operStatuses {
		v := 0.0
		if st == "up" {
			v = 1
		}
		gauge(ch, netOperStatus, v, nic, st)
	}
	if a.IP != "" && a.IP != "0.0.0.0" {
		gauge(ch, netAddressInfo, 1, nic, a.IP, "ipv4")
	}
	return nil
}

var (
	svcInfo      = desc("service", "info", "A metric with a constant '1' value labeled with service information", "name", "display_name", "run_as", "path_name")
	svcState     = desc("service", "state", "The state of the service (State)", "name", "state")
	svcStartMode = desc("service", "start_mode", "The start mode of the service (StartMode)", "name", "start_mode")
	svcProcess   = desc("service", "process", "Process of started service. The value is the creation time of the process as a unix timestamp.", "name", "process_id")
)

var (
	serviceStates     = []string{"continue pending", "pause pending", "paused", "running", "start pending", "stop pending", "stopped"}
	serviceStartModes = []string{"auto", "boot", "manual", "disabled", "system"}
)

// collectService reports the node's services (Sys.Machine); without
// them there is nothing to list.
func collectService(ch chan<- prometheus.Metric, s *scrape) error {
	if s.machine == nil {
		return errNoData
	}
	for _, svc := range s.machine.Services {
		if !s.c.service.match(svc.Name) {
			continue
		}
		gauge(ch, svcInfo, 1, svc.Name, svc.DisplayName, svc.RunAs, svc.PathName)
		for _, st := range serviceStates {
			gauge(ch, svcState, b2f(st == svc.State), svc.Name, st)
		}
		for _, m := range serviceStartModes {
			gauge(ch, svcStartMode, b2f(m == svc.StartMode), svc.Name, m)
		}
		if svc.PID != 0 {
			gauge(ch, svcProcess, float64(svc.Started.Unix()), svc.Name, strconv.Itoa(svc.PID))
		}
	}
	return nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

var (
	sysBootTime   = desc("system", "boot_time_timestamp", "Unix timestamp of system boot time")
	sysProcesses  = desc("system", "processes", "Current number of processes (WMI source: PerfOS_System.Processes)")
	sysProcLimit  = desc("system", "processes_limit", "Maximum number of processes.")
	sysQueue      = desc("system", "processor_queue_length", "Length of processor queue (WMI source: PerfOS_System.ProcessorQueueLength)")
	sysThreads    = desc("system", "threads", "Current number of threads (WMI source: PerfOS_System.Threads)")
	sysCtxSwitch  = desc("system", "context_switches_total", "Total number of context switches (WMI source: PerfOS_System.ContextSwitchesPersec)")
	sysSysCalls   = desc("system", "system_calls_total", "Total number of system calls (WMI source: PerfOS_System.SystemCallsPersec)")
	sysExceptions = desc("system", "exception_dispatches_total", "Total number of exceptions dispatched (WMI source: PerfOS_System.ExceptionDispatchesPersec)")
)

// collectSystem reports the node's boot time and process counts from
// Sys.Machine; the processes limit is the constant upstream reports.
// The emulation switches no contexts: those counters stay 0.
func collectSystem(ch chan<- prometheus.Metric, s *scrape) error {
	gauge(ch, sysProcLimit, 4294967295)
	gauge(ch, sysQueue, 0)
	counter(ch, sysCtxSwitch, 0)
	counter(ch, sysSysCalls, 0)
	counter(ch, sysExceptions, 0)
	if s.machine == nil {
		return nil
	}
	if !s.machine.Boot.IsZero() {
		gauge(ch, sysBootTime, float64(s.machine.Boot.Unix()))
	}
	gauge(ch, sysProcesses, float64(s.machine.Processes))
	gauge(ch, sysThreads, float64(s.machine.Threads))
	return nil
}

var (
	ctrLabels     = []string{"container_id", "namespace", "pod", "container"}
	ctrNetLabels  = append(append([]string{}, ctrLabels...), "interface")
	ctrAvailable  = desc("container", "available", "Available", append(append([]string{}, ctrLabels...), "hostprocess")...)
	ctrCount      = desc("container", "count", "Number of containers")
	ctrCommit     = desc("container", "memory_usage_commit_bytes", "Memory Usage Commit Bytes", ctrLabels...)
	ctrCommitPeak = desc("container", "memory_usage_commit_peak_bytes", "Memory Usage Commit Peak Bytes", ctrLabels...)
	ctrWorkingSet = desc("container", "memory_usage_private_working_set_bytes", "Memory Usage Private Working Set Bytes", ctrLabels...)
	ctrCPU        = desc("container", "cpu_usage_seconds_total", "Total Run time in Seconds", ctrLabels...)
	ctrCPUUser    = desc("container", "cpu_usage_seconds_usermode", "Run Time in User mode in Seconds", ctrLabels...)
	ctrCPUKernel  = desc("container", "cpu_usage_seconds_kernelmode", "Run time in Kernel mode in Seconds", ctrLabels...)
	ctrRecv       = desc("container", "network_receive_bytes_total", "Bytes Received on Interface", ctrNetLabels...)
	ctrSent       = desc("container", "network_transmit_bytes_total", "Bytes Sent on Interface", ctrNetLabels...)
	ctrPktRecv    = desc("container", "network_receive_packets_total", "Packets Received on Interface", ctrNetLabels...)
	ctrPktSent    = desc("container", "network_transmit_packets_total", "Packets Sent on Interface", ctrNetLabels...)
)

// collectContainer reports the runtime's containers (Sys.Machine); the
// container collector needs the node's HCS, so without machine stats
// there is no data.
func collectContainer(ch chan<- prometheus.Metric, s *scrape) error {
	if s.machine == nil {
		return errNoData
	}
	gauge(ch, ctrCount, float64(len(s.machine.Containers)))
	for _, c := range s.machine.Containers {
		l := []string{"containerd://" + c.ID, c.Namespace, c.Pod, c.Container}
		gauge(ch, ctrAvailable, 1, append(l, strconv.FormatBool(c.HostProcess))...)
		gauge(ch, ctrCommit, float64(c.CommitBytes), l...)
		gauge(ch, ctrCommitPeak, float64(max(c.CommitPeakBytes, c.CommitBytes)), l...)
		gauge(ch, ctrWorkingSet, float64(c.WorkingSetBytes), l...)
		counter(ch, ctrCPU, c.CPU.Seconds(), l...)
		gauge(ch, ctrCPUUser, c.CPUUser.Seconds(), l...)
		gauge(ch, ctrCPUKernel, (c.CPU - c.CPUUser).Seconds(), l...)
		if c.HostProcess || c.Interface == "" {
			continue // a HostProcess container has no endpoint of its own
		}
		nl := append(append([]string{}, l...), c.Interface)
		counter(ch, ctrRecv, float64(c.BytesReceived), nl...)
		counter(ch, ctrSent, float64(c.BytesSent), nl...)
		counter(ch, ctrPktRecv, float64(c.PacketsReceived), nl...)
		counter(ch, ctrPktSent, float64(c.PacketsSent), nl...)
	}
	return nil
}
