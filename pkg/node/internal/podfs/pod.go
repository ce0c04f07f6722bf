// Package podfs is what a pod's containers see of files: each container
// run's filesystem (its image's layout, the files the kubelet and the
// runtime add, the pod's volumes at their mounts; fsbuild.go), the pod's
// volumes themselves, made once per pod and written again from their
// sources on the kubelet's sync period (volumes.go, volumesync.go), the
// Unix sockets of its emptyDirs (sockets.go), and the writable layers
// kept across a stop of the node agent (layers.go). It is given what it
// uses (Config), never the pod worker or the node agent.
package podfs

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/winkube/winkube/pkg/emu/unixsock"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/node/internal/kubeletenv"
)

// Config is what a pod's files are made from.
type Config struct {
	// Windows: the pod runs on a Windows node.
	Windows bool
	// Clock is the pod's time source; Ctx ends when the agent closes.
	Clock clock.Clock
	Ctx   context.Context
	// Recorder records the pod's events.
	Recorder record.EventRecorder
	// Client asks for service account tokens; Objects are the agent's
	// view of the API.
	Client  kubernetes.Interface
	Objects kubeletenv.Objects
	// KubeletNode is what the node's kubelet knows of itself.
	KubeletNode func() kubeletenv.Node
	// Disk is the node's own filesystem (hostPath volumes, HostProcess
	// containers); ClaimVolume the data of a PersistentVolumeClaim.
	Disk        func() *vfs.Volume
	ClaimVolume func(namespace, claim string) *vfs.Volume
	// CSIPublished is the path in Disk where a CSI driver published the
	// pod's volume name (NodePublishVolume's target); false, or nil, when
	// none did.
	CSIPublished func(name string) (string, bool)
	// Sockets are the Unix sockets of the node's filesystem; nil: none.
	Sockets *unixsock.Namespace
	// LayerDir keeps containers' writable layers across a stop of the
	// node agent; empty: they are not kept.
	LayerDir string
	// SyncPeriod is how often a running pod's volumes are written again
	// (VolumeSyncPeriod).
	SyncPeriod time.Duration
	// Pod is the latest version of the pod; PodIPs its addresses (the
	// node's on the host network).
	Pod    func() *corev1.Pod
	PodIPs func() []string
}

// Pod is the files of one pod: its volumes as its containers see them
// and the socket namespaces of its emptyDirs, shared by its containers.
type Pod struct {
	cfg Config

	mu sync.Mutex
	// vols are the pod's volumes as its containers see them (guarded by
	// mu: a program's first file access makes them).
	vols map[string]*vfs.Volume
	// sockets are the Unix socket namespaces of the pod's emptyDir
	// volumes (guarded by mu).
	sockets map[string]*unixsock.Namespace
	// volFiles is what the atomic writer last wrote in each of vols made
	// from API objects (guarded by mu); Sync compares the objects'
	// current content with it.
	volFiles   map[string]kubeletenv.Files
	volumeSync volumeSync
	// tokens are the pod's service account tokens (volumesync.go).
	tokens tokenCache
}

// New makes the files of a pod, none made yet.
func New(cfg Config) *Pod { return &Pod{cfg: cfg} }
