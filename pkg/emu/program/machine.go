package program

import "time"

// MachineStats is the node's hardware, load, services and containers as
// its OS counts them: what a metrics agent on the node reads from
// performance counters, the service manager and the container runtime
// (windows_exporter). Counters run from Boot.
type MachineStats struct {
	// Boot is when the node (its OS) started.
	Boot time.Time
	// LogicalProcessors and MemoryBytes are the machine's (the Node's
	// capacity); MemoryAvailableBytes is what is free of it now.
	LogicalProcessors    int
	MemoryBytes          uint64
	MemoryAvailableBytes uint64
	// CPUBusy is the processor time spent outside the idle loop since
	// Boot, summed over the logical processors.
	CPUBusy time.Duration
	// Processes and Threads are the node's running processes and threads.
	Processes, Threads int
	// Adapter is the node's network adapter and what it has carried.
	Adapter Adapter
	// Services are the node's Windows services (containerd, kubelet, ...).
	Services []Service
	// Containers are the containers the node's runtime runs now.
	Containers []ContainerStats
}

// Adapter is a network adapter: its description (the performance
// counter instance), MAC, address and traffic since Boot.
type Adapter struct {
	Description, MAC, IP string
	// BandwidthBits is the link speed in bits per second.
	BandwidthBits                                          uint64
	BytesReceived, BytesSent, PacketsReceived, PacketsSent uint64
}

// Service is a Windows service as the service manager lists it.
type Service struct {
	Name, DisplayName, PathName, RunAs string
	// State is running, stopped, ...; StartMode auto, manual, disabled.
	State, StartMode string
	// PID and Started are its process's, zero when it is not running.
	PID     int
	Started time.Time
}

// ContainerStats is one container as the runtime's (HCS) statistics
// report it.
type ContainerStats struct {
	ID, Namespace, Pod, Container string
	HostProcess                   bool
	// CPU is the container's processor time, User of which in user mode.
	CPU, CPUUser    time.Duration
	WorkingSetBytes uint64
	CommitBytes     uint64
	CommitPeakBytes uint64
	// Interface is the container's network endpoint; its traffic is
	// zero for a HostProcess container, which shares the node's.
	Interface                                              string
	BytesReceived, BytesSent, PacketsReceived, PacketsSent uint64
}
