package podworker

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/unixsock"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/emu/vnet"
	"github.com/winkube/winkube/pkg/node/internal/admission"
	"github.com/winkube/winkube/pkg/node/internal/cri"
	"github.com/winkube/winkube/pkg/node/internal/images"
	"github.com/winkube/winkube/pkg/node/internal/kubeletapi"
	"github.com/winkube/winkube/pkg/node/internal/kubeletenv"
	"github.com/winkube/winkube/pkg/node/internal/podnet"
	"github.com/winkube/winkube/pkg/node/internal/podstatus"
	"github.com/winkube/winkube/pkg/node/internal/volume"
	"github.com/winkube/winkube/pkg/windows"
	"github.com/winkube/winkube/pkg/windows/activedirectory"
)

// Node is what the pod workers of one node use of it and of the agent
// that runs it: the node's facts, the API, the pod network and the node's
// own state (images, disk, admission). The agent makes one per node
// (pkg/node's workernode.go); every worker of the node shares it.
type Node struct {
	// Name, IP, Host, CPUs, PauseImage and Kubelet are the node's facts:
	// its name and address, its OS personality, the pool's CPU count, the
	// default sandbox image and the kubelet's version.
	Name       string
	IP         string
	Host       Host
	CPUs       int
	PauseImage string
	Kubelet    string

	// Client is the agent's API client; Recorder records the node's
	// events; Objects are the agent's informer-backed view of the API.
	Client   kubernetes.Interface
	Recorder record.EventRecorder
	Objects  kubeletenv.Objects
	// Clock is the workers' time source; RunCtx ends when the agent
	// closes.
	Clock  clock.Clock
	RunCtx context.Context
	// Programs counts the container programs running on goroutines of
	// their own, so the agent can wait for their clean-up when it
	// closes; nil: not counted.
	Programs *sync.WaitGroup
	// LayerDir keeps containers' writable layers across a stop of the
	// node agent (SaveLayers, and lazyFS at the resume); empty: they are
	// not kept, and a container that wrote files says so at the stop.
	LayerDir string
	// Fabric carries the pods' traffic, Router decides it.
	Fabric *vnet.Fabric
	Router *podnet.Router
	// Groups are the node's local groups (HostProcess containers).
	Groups *program.LocalGroups
	// Sockets are the Unix sockets of the node's filesystem, which
	// containers reach through hostPath volumes and HostProcess
	// containers at C:\ (CSI drivers, the kubelet's plugin registry).
	Sockets *unixsock.Namespace
	// Domain is the Active Directory domain the node is joined to
	// (GMSA credential specs name it).
	Domain activedirectory.Domain
	// SyncPeriod is how often a running pod's volumes are written again
	// from their sources (podfs.Pod.Sync).
	SyncPeriod time.Duration

	// Queue hands the worker to the agent's pod queue now.
	Queue func(w *Worker)
	// Network is the node's IPAM, nil until the node has a pod CIDR.
	Network func() *podnet.IPAM
	// KubeletNode is what the node's kubelet knows of itself.
	KubeletNode func() kubeletenv.Node
	// OSInfo is what the node's OS tells a container's programs.
	OSInfo func() program.OSInfo
	// Machine is what a program on the node reads of the machine.
	Machine func() program.MachineStats
	// Disk is the node's own filesystem (hostPath volumes, HostProcess
	// containers).
	Disk func() *vfs.Volume
	// ClaimVolume is the data of a PersistentVolumeClaim.
	ClaimVolume func(namespace, claim string) *vfs.Volume
	// Images is the node's image manager (images.Manager).
	Images Images
	// StartCounters are the node's container start counters.
	StartCounters func() *kubeletapi.Counters
	// VolumeIssues checks every volume the pod's containers use on the
	// node; due says whether a volume's next mount attempt is due.
	VolumeIssues func(ctx context.Context, pod *corev1.Pod, due func(volume string) bool) []volume.Issue
	// CSIPublished is the node path where a CSI driver published a pod's
	// volume; Unmount starts unpublishing a deleted pod's CSI
	// volumes and reports whether they are gone. Either may be nil.
	CSIPublished func(pod types.UID, volume string) (string, bool)
	Unmount      func(ctx context.Context, pod types.UID) bool
	// Admit runs pod admission (KLT-4); it marks w admitted
	// (Worker.MarkAdmitted) when the pod is.
	Admit func(w *Worker, pod *corev1.Pod) admission.Result
	// ResizeFit is the admission of a resize on a Linux node: the reason
	// it is Deferred, empty when the desired pod fits.
	ResizeFit func(w *Worker, pod *corev1.Pod) (reason, message string)
	// ReportErr reports an error the agent cannot act on; Succeeded and
	// Failed record an API call that worked or failed (Op*).
	ReportErr func(err error)
	Succeeded func(op string)
	Failed    func(op string, err error)
}

// Images is the node's image manager as the workers use it: the pull
// step of a container start, and the image that a container which ran
// before the agent restarted kept.
type Images interface {
	Ensure(ctx context.Context, p images.Pull) images.Result
	Kept(ctx context.Context, pod *corev1.Pod, ref string) (cri.Pulled, error)
}

// Host is the node's OS personality, as far as the workers use it.
type Host interface {
	// OS is the kubernetes.io/os value: "windows" or "linux".
	OS() string
	// Runtime is the emulated container runtime.
	Runtime() cri.Runtime
	// GracePeriod is the seconds a container really gets to stop (LIM-14).
	GracePeriod(requested int64) int64
	// KilledExitCode is the exit code of a container killed at the end of
	// its grace period.
	KilledExitCode() int32
	// UsesPodNetwork reports whether the pod gets an IP from the pod CIDR.
	UsesPodNetwork(pod *corev1.Pod) bool
}

// The API calls whose trouble the workers report (Node.Succeeded and
// Node.Failed).
const (
	OpPodStatus = podstatus.OpPodStatus
	OpPodDelete = "delete pods"
)

// countStart records one attempt to start c once its image is there, as
// kuberuntime's startContainer counts it: code is "" when the container
// started, else the reason the attempt failed with (CreateContainerConfigError,
// CreateContainerError, RunContainerError, PreStartHookError).
func (n *Node) countStart(pod *corev1.Pod, c *ctr, code string) {
	kind := "container"
	if c.init {
		kind = "init_container"
	}
	hostProcess := n.Host.OS() == "windows" && windows.IsHostProcessPod(&pod.Spec)
	n.StartCounters().Count(kind, hostProcess, code)
}

// What the agent does with a worker: hand it the latest pod, run its
// steps from the pod queue, and stop it when the pod leaves the API.

// Update records the latest pod; the caller queues the worker.
func (w *Worker) Update(pod *corev1.Pod) { w.update(pod) }

// Step runs one pass of the worker and returns when the pod next needs a
// look (zero: not until it changes).
func (w *Worker) Step(ctx context.Context) time.Time { return w.step(ctx) }

// Latest is the latest version of the pod.
func (w *Worker) Latest() *corev1.Pod { return w.latest() }

// IsActive reports whether the pod counts against the node's resources.
func (w *Worker) IsActive() bool { return w.isActive() }

// MarkAdmitted records that admission admitted the pod (Node.Admit).
func (w *Worker) MarkAdmitted() { w.admitted.Store(true) }

// Removed reports whether the pod left the API.
func (w *Worker) Removed() bool { return w.removed.Load() }

// MarkRemoved records that the pod left the API: a queued step then does
// nothing.
func (w *Worker) MarkRemoved() { w.removed.Store(true) }

// StopContainers stops the process of every container at once, each at
// the time now says.
func (w *Worker) StopContainers(now func() time.Time) {
	for _, c := range w.containers() {
		c.stopProcess(now())
	}
}

// Target is the pod as the kubelet API reaches it: exec, attach,
// port-forward, status and logs.
func (w *Worker) Target() kubeletapi.Pod { return &podTarget{w: w} }

// NetHost is the pod's place on the pod network, nil until a container
// joined it.
func (w *Worker) NetHost() *vnet.Host { return w.netHost.Load() }
