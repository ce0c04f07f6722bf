package node

import (
	"context"
	"net"
	"net/netip"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"time"
	"weak"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/node/internal/kubeletapi"
	"github.com/winkube/winkube/pkg/node/internal/status"
)

// The kubelet API (internal/kubeletapi) as the agent's callers see it.
type (
	// KubeletServing puts the nodes' kubelet API on real TCP listeners,
	// for a cluster whose kube-apiserver runs in another process or
	// machine (`winkube nodes`); see kubeletapi.Serving.
	KubeletServing = kubeletapi.Serving
	// ListenError is a kubelet listener that could not be bound.
	ListenError = kubeletapi.ListenError
	// ServingCSR is a certificate signing request filed for one node.
	ServingCSR = kubeletapi.ServingCSR
)

// AnnotationNodeIP is the node's address on the emulated pod network when
// its InternalIP in the API is the real address its kubelet serves on.
const AnnotationNodeIP = annotations.EmulatedNodeIP

// Annotations that set what a pod's containers use, so that a test or a
// demo can raise the load an HPA sees. Each is a quantity for the whole
// pod, shared among its running containers in proportion to their
// requests (evenly when none requests any).
const (
	AnnotationUsageCPU    = annotations.UsageCPU    // e.g. "750m"
	AnnotationUsageMemory = annotations.UsageMemory // e.g. "300Mi"
)

// newKubeletServer is the kubelet API of the agent's nodes.
func newKubeletServer(a *Agent) *kubeletapi.Server {
	cfg := kubeletapi.Config{
		Client:   a.client,
		Names:    a.names,
		Progress: a.progress.printf,
		Network:  "vxlan0",
		Node: func(name string) kubeletapi.Node {
			if n, ok := a.nodes[name]; ok {
				return kubeletNode{n}
			}
			return nil
		},
	}
	if c := a.cluster; c != nil {
		cfg.DNSServiceIP = c.Network.DNSServiceIP
		// The CNI network of the cluster's mode, as the flannel add-on
		// names it (vxlan0 for overlay, cbr0 for l2bridge).
		if c.Network.Mode == v1alpha1.ModeL2Bridge {
			cfg.Network = "cbr0"
		}
	}
	return kubeletapi.New(cfg)
}

// listenKubelet binds the real kubelet listeners, if asked, and records
// each node's endpoint before the nodes register.
func (a *Agent) listenKubelet(o *KubeletServing) error {
	endpoints, err := a.kubelet.Listen(o)
	if err != nil {
		return err
	}
	for name, ep := range endpoints {
		a.nodes[name].spec.endpoint = ep
	}
	return nil
}

// DialKubelet connects to the kubelet endpoint of one of this agent's
// nodes. addr is what kube-apiserver dials: the node's name or InternalIP
// and the kubelet port. ok is false when addr is not such a node.
func (a *Agent) DialKubelet(addr string) (conn net.Conn, ok bool, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port != strconv.Itoa(kubeletapi.Port) {
		return nil, false, nil
	}
	n := a.nodeByAddress(host)
	if n == nil {
		return nil, false, nil
	}
	conn, err = a.kubelet.Dial(n.spec.name)
	return conn, true, err
}

// nodeByAddress finds a node by name or InternalIP.
func (a *Agent) nodeByAddress(host string) *emuNode {
	if n, ok := a.nodes[host]; ok {
		return n
	}
	for _, n := range a.nodes {
		if n.spec.ip == host {
			return n
		}
	}
	return nil
}

// RequestServingCerts files one kubernetes.io/kubelet-serving CSR per node,
// as a kubelet with serverTLSBootstrap does (subject system:node:NAME in
// system:nodes, the node's name and addresses as SANs), approves each when
// approve is set and the identity may, and serves each node's issued
// certificate as soon as it appears. It does nothing when a certificate
// was given (KubeletServing.Cert) or the API is served in-process only.
func (a *Agent) RequestServingCerts(ctx context.Context, approve bool) ([]ServingCSR, error) {
	return a.kubelet.RequestServingCerts(ctx, approve)
}

// CheckKubeletReachable fails when the cluster's apiserver cannot reach
// the nodes' kubelets (kubeletapi.Server.CheckReachable). It does nothing
// when the kubelet API is served in-process only.
func (a *Agent) CheckKubeletReachable(ctx context.Context) error {
	return a.kubelet.CheckReachable(ctx)
}

// kubeletNode is an emulated node as its kubelet API sees it.
type kubeletNode struct{ n *emuNode }

func (k kubeletNode) Facts() kubeletapi.Facts {
	s := k.n.spec
	return kubeletapi.Facts{Name: s.name, IP: s.ip, Windows: s.host.OS() == "windows", Pool: s.pool, Capacity: s.capacity()}
}

// Pods are the pods bound to the node, sorted by namespace and name.
func (k kubeletNode) Pods() []*corev1.Pod {
	all, _ := k.n.agent.podLister.List(labels.Everything())
	var out []*corev1.Pod
	for _, p := range all {
		if p.Spec.NodeName == k.n.spec.name {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func (k kubeletNode) Pod(namespace, name string) *corev1.Pod {
	pod, err := k.n.agent.podLister.Pods(namespace).Get(name)
	if err != nil || pod.Spec.NodeName != k.n.spec.name {
		return nil
	}
	return pod
}

func (k kubeletNode) Running(namespace, name string) kubeletapi.Pod {
	if w := k.n.workerByName(namespace, name); w != nil {
		return w.Target()
	}
	return nil
}

func (k kubeletNode) Counters() *kubeletapi.Counters { return k.n.startCounters() }

// nodeCounters holds each node's counters beside the node, keyed weakly
// (emuNode has no field for them).
var nodeCounters sync.Map // weak.Pointer[emuNode] → *kubeletapi.Counters

func (n *emuNode) startCounters() *kubeletapi.Counters {
	key := weak.Make(n)
	v, loaded := nodeCounters.LoadOrStore(key, kubeletapi.NewCounters())
	if !loaded {
		runtime.AddCleanup(n, func(k weak.Pointer[emuNode]) { nodeCounters.Delete(k) }, key)
	}
	return v.(*kubeletapi.Counters)
}

// KubeletEndpoints lists each node's kubelet address, by node name; empty
// when the kubelet API is served in-process only.
func (a *Agent) KubeletEndpoints() map[string]netip.AddrPort {
	out := map[string]netip.AddrPort{}
	for name, n := range a.nodes {
		if n.spec.endpoint.IsValid() {
			out[name] = n.spec.endpoint
		}
	}
	return out
}

// nodeView is the informers' transform: it drops managed fields and shows
// a node whose kubelet serves on a real address (AnnotationNodeIP) at its
// emulated address, which is what the pod network model and the agent's
// status comparisons work with.
func nodeView(obj any) (any, error) {
	obj, err := dropManagedFields(obj)
	if n, ok := obj.(*corev1.Node); ok {
		status.EmulatedAddress(n)
	}
	return obj, err
}

// RemoveNodesSince deletes the agent's nodes created at or after since,
// for a start that failed after they registered: nodes left behind would
// answer nothing. Nodes that existed before (an earlier run's, with their
// pods) stay. It returns the names it deleted.
func (a *Agent) RemoveNodesSince(ctx context.Context, since time.Time) []string {
	var removed []string
	nodes := a.client.CoreV1().Nodes()
	for _, name := range a.names {
		n, err := nodes.Get(ctx, name, metav1.GetOptions{})
		if err != nil || n.CreationTimestamp.Time.Before(since.Truncate(time.Second)) {
			continue
		}
		uid := n.UID
		err = nodes.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err == nil {
			removed = append(removed, name)
		}
	}
	return removed
}
