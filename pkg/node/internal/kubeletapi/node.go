// Package kubeletapi serves what kube-apiserver and metrics collectors ask
// a kubelet on port 10250, for every node of one agent: container logs,
// exec, attach and port-forward (the upstream CRI streaming server), the
// read-only API (/pods, /configz, /stats/summary, /metrics...), the
// kubelet's authentication and authorization on real listeners, and its
// serving certificates (self-signed, then issued through the certificates
// API). It knows the nodes only through the Node and Pod interfaces: the
// agent's pod workers run the containers, this package speaks the
// kubelet's HTTP API about them.
package kubeletapi

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/cri-streaming/pkg/streaming/portforward"
	remotecommandserver "k8s.io/cri-streaming/pkg/streaming/remotecommand"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/node/internal/ctrlog"
)

// Port is the kubelet's port, status.daemonEndpoints.kubeletEndpoint.port
// of a node served in-process.
const Port = 10250

// Config is what the server needs of the agent.
type Config struct {
	// Client files reviews (TokenReview, SubjectAccessReview), CSRs and
	// the reachability check: the agent's own identity.
	Client kubernetes.Interface
	// Names are the nodes served, sorted; real listeners bind in this
	// order.
	Names []string
	// Node finds a served node by name; nil when it is not one.
	Node func(name string) Node
	// DNSServiceIP is the cluster DNS address /configz reports.
	DNSServiceIP string
	// Network is the CNI network pods' interfaces are named after in the
	// stats (vxlan0, cbr0).
	Network string
	// Progress prints one milestone line (certificate issued, denied).
	Progress func(format string, args ...any)
}

// Facts are what the kubelet API reports of a node itself.
type Facts struct {
	Name string
	// IP is the node's address on the emulated pod network.
	IP       string
	Windows  bool
	Pool     *v1alpha1.NodePool
	Capacity corev1.ResourceList
}

// Node is one emulated node as its kubelet API serves it.
type Node interface {
	Facts() Facts
	// Pods are the pods bound to the node, as the agent's cache has them.
	Pods() []*corev1.Pod
	// Counters are the node's container start counters.
	Counters() *Counters
	// Pod is the pod of that name bound to the node, from the agent's
	// cache; nil when there is none.
	Pod(namespace, name string) *corev1.Pod
	// Running is the node's running pod of that name; nil when it has
	// none.
	Running(namespace, name string) Pod
}

// Pod is one pod a node runs: exec, attach and port-forward go to its
// containers, logs come from their runs.
type Pod interface {
	remotecommandserver.Executor
	remotecommandserver.Attacher
	portforward.PortForwarder
	// Status is the status the node last wrote for the pod, which the
	// agent's watch may not have seen yet; nil when none was written.
	Status() *corev1.PodStatus
	// Log is the log of the container's current or previous run; nil
	// when the agent has none (a run from before an agent restart).
	Log(container string, previous bool) *ctrlog.Log
}

// Counters are a node's container start counters, the kubelet's
// kubelet_started_*containers_total series, keyed by their label sets.
type Counters struct {
	mu                                    sync.Mutex
	started, errors                       map[string]float64
	hostProcessStarted, hostProcessErrors map[string]float64
}

// NewCounters are counters at zero.
func NewCounters() *Counters {
	return &Counters{
		started: map[string]float64{}, errors: map[string]float64{},
		hostProcessStarted: map[string]float64{}, hostProcessErrors: map[string]float64{},
	}
}

// Count records one attempt to start a container once its image is there,
// as kuberuntime's startContainer counts it: kind is "container" or
// "init_container", code is "" when the container started, else the
// reason the attempt failed with (CreateContainerConfigError,
// CreateContainerError, RunContainerError, PreStartHookError).
func (c *Counters) Count(kind string, hostProcess bool, code string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	typ := "container_type=\"" + kind + "\""
	c.started[typ]++
	if hostProcess {
		c.hostProcessStarted[typ]++
	}
	if code == "" {
		return
	}
	withCode := "code=\"" + code + "\"," + typ
	c.errors[withCode]++
	if hostProcess {
		c.hostProcessErrors[withCode]++
	}
}
