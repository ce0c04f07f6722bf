// Package annotations names the winkube.io/* annotations (and the one
// label) that users set and that winkube's packages write and read. It
// imports only apimachinery's quantities, so any package can use it: the
// names have one definition, what each value means is written down here,
// and the values a user sets are parsed here once (values.go) for the
// emulated node, lint and the webhook alike.
package annotations

// LabelPool is the label on an emulated node naming its node pool.
const LabelPool = "winkube.io/pool"

// Annotations on a pod that steer its emulated processes. They stand in
// for what the container's program would do on a real node.
const (
	// RunSeconds is how long each container runs before it exits.
	// Without it, containers of pods whose restartPolicy is not Always exit
	// after a default time and the others run until deleted.
	RunSeconds = "winkube.io/run-seconds"
	// ExitCode is the exit code of the regular containers.
	ExitCode = "winkube.io/exit-code"
	// IgnoreSIGTERM "true" makes the containers ignore the stop signal, so
	// they run until the (runtime-capped, LIM-14) grace period ends and are
	// then killed.
	IgnoreSIGTERM = "winkube.io/ignore-sigterm"
	// SandboxImage overrides the node's pause image for one pod, to show
	// what a node configured with that image does (IMG-5, TS-11).
	SandboxImage = "winkube.io/sandbox-image"
	// ImageUsers lists, comma-separated, the Windows accounts an image adds
	// to the base image's (RUN net user ... in its Dockerfile). The
	// emulation cannot read them from the image, so without it a
	// runAsUserName other than the built-in accounts fails to log on, as it
	// would in an image that does not create the account.
	ImageUsers = "winkube.io/image-users"
)

// Annotations on a pod that set what its containers use, so that a test or
// a demo can raise the load an HPA sees. Each is a quantity for the whole
// pod, shared among its running containers in proportion to their
// requests (evenly when none requests any).
const (
	UsageCPU    = "winkube.io/usage-cpu"    // e.g. "750m"
	UsageMemory = "winkube.io/usage-memory" // e.g. "300Mi"
)

// WindowsResources, written by the emulated node on a pod, holds per
// container what the Windows runtime receives for it (KLT-5, KLT-6,
// KLT-7). `winkube describe pod` prints it.
const WindowsResources = "winkube.io/windows-resources"

// Annotations on a node that say which storage software its emulated host
// has installed. A real kubelet learns this from the plugins on the host;
// the emulated host has none unless the node is annotated.
const (
	// VolumeDrivers lists, comma-separated, the CSI drivers whose node
	// plugins run on the node and the FlexVolume drivers installed in its
	// plugin directory, e.g. "smb.csi.k8s.io,microsoft.com/smb.cmd".
	VolumeDrivers = "winkube.io/volume-drivers"
	// CSIProxy "true" says csi-proxy runs on a Windows node. Without it no
	// CSI node plugin can run there, so none registers (STO-1).
	CSIProxy = "winkube.io/csi-proxy"
)

// EmulatedNodeIP, written by the emulated node, is the node's address on
// the emulated pod network when its InternalIP in the API is the real
// address its kubelet serves on (`winkube nodes --kubelet-address`).
// Whatever models the pod network reads the node's address from it first.
const EmulatedNodeIP = "winkube.io/emulated-node-ip"

// Ignore, on any object, lists comma-separated rule IDs `winkube lint`
// does not report for it ("IMG-2,SCH-5"); the summary counts what it
// silenced.
const Ignore = "winkube.io/ignore"

// PlacedBy, written by the mutating webhook on a pod, records what it
// added to the pod's placement and why, with rule IDs.
const PlacedBy = "winkube.io/placed-by"

// LabelWebhookOptOut on a pod or workload with the value "disabled" keeps
// the admission webhooks away from it (their objectSelector).
const LabelWebhookOptOut = "winkube.io/webhook"

// UnknownProgram, on a pod, says what runs for a container whose program
// winkube cannot follow (an image it does not know started without a
// command, a program or PowerShell construct it does not emulate):
// "stand-in" (the default: a stand-in listens on the container's declared
// and probed ports and answers what connects, see pkg/emu/standin),
// "idle" (nothing listens; the container runs until its run-seconds and
// exit-code annotations say, and its network probes pass), or "exit CODE"
// (the container exits with CODE at once).
const UnknownProgram = "winkube.io/unknown-program"
