package winexporter

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/winkube/winkube/pkg/emu/program"
)

// scrape is what one scrape reads of the node.
type scrape struct {
	now       time.Time
	sys       *program.Sys
	procs     int
	machine   *program.MachineStats // nil: the node reports none
	c         *collection
	hostProc  bool
	exporterT time.Duration // how long the exporter has run
}

func (c *collection) snapshot() *scrape {
	s := &scrape{now: c.p.Sys.Clock.Now(), sys: c.p.Sys, procs: processors(c.p), c: c}
	if c.p.Sys.Machine != nil {
		m := c.p.Sys.Machine()
		s.machine = &m
	}
	// A HostProcess container runs as a node account (NT AUTHORITY\...)
	// and sees the node's adapter; other containers run as a container
	// account behind their own endpoint.
	s.hostProc = strings.Contains(c.p.Sys.User.Account, `\`)
	s.exporterT = max(s.now.Sub(c.start), 0)
	return s
}

// uptime is the time the counters have run: since the node booted when
// it says so, else since the exporter started.
func (s *scrape) uptime() time.Duration {
	if s.machine != nil && !s.machine.Boot.IsZero() {
		return max(s.now.Sub(s.machine.Boot), 0)
	}
	return s.exporterT
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func counter(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
}

func desc(collector, name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(prometheus.BuildFQName("windows", collector, name), help, labels, nil)
}

// os: the product and version from the registry (Sys.OS, the node's).
var osHostname = desc("os", "hostname", "Labelled system hostname information as provided by ComputerSystem.DNSHostName and ComputerSystem.Domain", "hostname", "domain", "fqdn")

func collectOS(ch chan<- prometheus.Metric, s *scrape) error {
	o := s.sys.OS
	info := prometheus.NewDesc("windows_os_info",
		`Contains full product name & version in labels. Note that the "major_version" for Windows 11 is \"10\"; a build number greater than 22000 represents Windows 11.`,
		nil, prometheus.Labels{
			"product":       strings.TrimSpace(o.ProductName),
			"version":       fmt.Sprintf("%d.%d.%d", o.Major, o.Minor, o.Build),
			"major_version": strconv.Itoa(o.Major), "minor_version": strconv.Itoa(o.Minor),
			"build_number": strconv.Itoa(o.Build), "revision": strconv.Itoa(o.UBR),
		})
	gauge(ch, info, 1)
	// A workgroup node: no DNS domain, so the FQDN is the host name.
	gauge(ch, osHostname, 1, s.sys.Hostname, "", s.sys.Hostname)
	return nil
}

var (
	cpuLogical    = desc("cpu", "logical_processor", "Total number of logical processors")
	cpuCState     = desc("cpu", "cstate_seconds_total", "Time spent in low-power idle state", "core", "state")
	cpuTime       = desc("cpu", "time_total", "Time that processor spent in different modes (dpc, idle, interrupt, privileged, user)", "core", "mode")
	cpuInterrupts = desc("cpu", "interrupts_total", "Total number of received and serviced hardware interrupts", "core")
	cpuDPCs       = desc("cpu", "dpcs_total", "Total number of received and serviced deferred procedure calls (DPCs)", "core")
	cpuClock      = desc("cpu", "clock_interrupts_total", "Total number of received and serviced clock tick interrupts", "core")
	cpuParking    = desc("cpu", "parking_status", "Parking Status represents whether a processor is parked or not", "core")
)

// clockTicksPerSecond is Windows' default timer resolution (15.625 ms).
const clockTicksPerSecond = 64

// collectCPU reports each logical processor. The emulation runs no
// instructions, so processor time is derived: the node's busy time
// (Sys.Machine's, which the kubelet's stats report too) shared evenly,
// three quarters user and one privileged; the rest of the uptime idle,
// all of it in C1. With no machine stats every processor is idle.
func collectCPU(ch chan<- prometheus.Metric, s *scrape) error {
	gauge(ch, cpuLogical, float64(s.procs))
	up := s.uptime().Seconds()
	busy := 0.0
	if s.machine != nil {
		busy = min(s.machine.CPUBusy.Seconds()/float64(s.procs), up)
	}
	for i := range s.procs {
		core := "0," + strconv.Itoa(i)
		idle := up - busy
		counter(ch, cpuTime, 0, core, "dpc")
		counter(ch, cpuTime, idle, core, "idle")
		counter(ch, cpuTime, 0, core, "interrupt")
		counter(ch, cpuTime, busy/4, core, "privileged")
		counter(ch, cpuTime, busy-busy/4, core, "user")
		counter(ch, cpuCState, idle, core, "c1")
		counter(ch, cpuCState, 0, core, "c2")
		counter(ch, cpuCState, 0, core, "c3")
		ticks := float64(int64(up * clockTicksPerSecond))
		counter(ch, cpuClock, ticks, core)
		counter(ch, cpuInterrupts, ticks, core)
		counter(ch, cpuDPCs, 0, core)
		gauge(ch, cpuParking, 0, core)
	}
	return nil
}

var (
	memTotal      = desc("memory", "physical_total_bytes", "The amount of actual physical memory, in bytes.")
	memFree       = desc("memory", "physical_free_bytes", "The amount of physical memory currently available, in bytes. This is the amount of physical memory that can be immediately reused without having to write its contents to disk first. It is the sum of the size of the standby, free, and zero lists.")
	memCommitted  = desc("memory", "committed_bytes", "(CommittedBytes)")
	memCommitLim  = desc("memory", "commit_limit", "(CommitLimit)")
	memProcLimit  = desc("memory", "process_memory_limit_bytes", "The size of the user-mode portion of the virtual address space of the calling process, in bytes. This value depends on the type of process, the type of processor, and the configuration of the operating system.")
	memPageFaults = desc("memory", "page_faults_total", "Overall rate at which faulted pages are handled by the processor (Page Faults/sec)")
)

// userAddressSpace is the user-mode address space of a 64-bit process
// on x64 Windows (128 TiB less the 64 KiB guard), GlobalMemoryStatusEx's
// ullTotalVirtual.
const userAddressSpace = 1<<47 - 1<<16 - 1

// collectMemory reports the node's memory from Sys.Machine; the commit
// charge and limit follow the kubelet's Windows stats (working set and a
// quarter, twice the memory), so kubectl top and the exporter agree.
func collectMemory(ch chan<- prometheus.Metric, s *scrape) error {
	gauge(ch, memProcLimit, userAddressSpace)
	m := s.machine
	if m == nil || m.MemoryBytes == 0 {
		return nil
	}
	used := m.MemoryBytes - min(m.MemoryAvailableBytes, m.MemoryBytes)
	gauge(ch, memTotal, float64(m.MemoryBytes))
	gauge(ch, memFree, float64(m.MemoryAvailableBytes))
	gauge(ch, memCommitted, float64(used+used/4))
	gauge(ch, memCommitLim, float64(2*m.MemoryBytes))
	counter(ch, memPageFaults, float64(used/4096))
	return nil
}
