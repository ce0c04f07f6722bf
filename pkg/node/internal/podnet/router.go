package podnet

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	miekg "github.com/miekg/dns"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	appslisters "k8s.io/client-go/listers/apps/v1"
	listerscorev1 "k8s.io/client-go/listers/core/v1"
	discoverylisters "k8s.io/client-go/listers/discovery/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/winkube/winkube/pkg/emu/vnet"
	"github.com/winkube/winkube/pkg/network"
	"github.com/winkube/winkube/pkg/network/dns"
	"github.com/winkube/winkube/pkg/network/reach"
)

// Router decides the emulated pods' traffic with the same model
// `winkube net check` walks (pkg/network/reach): a connection that check
// says fails, fails, and one it says reaches a backend reaches that
// backend's listener. The model is rebuilt from the agent's informers when
// a dial finds them changed since the last build.
type Router struct {
	minor    int           // the kubelets' Kubernetes minor version
	gen      atomic.Uint64 // bumped by every informer event
	nodes    listerscorev1.NodeLister
	pods     listerscorev1.PodLister
	services listerscorev1.ServiceLister
	slices   discoverylisters.EndpointSliceLister
	cms      listerscorev1.ConfigMapLister // kube-system
	dss      appslisters.DaemonSetLister   // kube-system

	mu      sync.Mutex
	builtAt uint64
	checker *reach.Checker
	records *dns.Records // the cluster DNS of the same build

	// running holds the pods whose containers run here, by namespace/name,
	// with their IPs: the node knows before the API does (its status
	// update follows), and a container's first connection (a postStart
	// hook, an init container) must not wait for it.
	running sync.Map
	// controlPlane holds the API server's own addresses (the endpoints
	// of the "kubernetes" Service): on a kubeadm cluster they are the
	// control-plane node's, which every pod and node reaches directly
	// too (the OIDC discovery document's jwks_uri names one).
	controlPlane sync.Map

	// hostPorts are the host ports of the pods that have them, by
	// namespace/name (hostport.go).
	hpMu      sync.Mutex
	hostPorts map[string]podPorts
}

// ControlPlane records addr as one of the API server's addresses.
func (r *Router) ControlPlane(addr netip.AddrPort) { r.controlPlane.Store(addr, true) }

// NewRouter is the router of kubelets of Kubernetes minor version minor;
// it routes once Watch has given it the informers.
func NewRouter(minor int) *Router { return &Router{minor: minor} }

// Live records that a pod's containers run with ip.
func (r *Router) Live(pod *corev1.Pod, ip netip.Addr) {
	key := pod.Namespace + "/" + pod.Name
	if old, ok := r.running.Swap(key, ip); !ok || old != ip {
		r.gen.Add(1)
	}
}

// Forget drops a pod that left the node.
func (r *Router) Forget(pod *corev1.Pod) {
	if _, ok := r.running.LoadAndDelete(pod.Namespace + "/" + pod.Name); ok {
		r.gen.Add(1)
	}
}

// Watch registers the informers the model needs: the agent's nodes,
// Services (all) and pods (pods), and those only the model needs.
// EndpointSlices and kube-system's ConfigMaps and DaemonSets are what
// kube-proxy and flanneld read; an identity that may not list them (a
// kubelet's, under `winkube nodes`) gets a model without them, which is
// what its nodes' kube-proxy would lack too, and the start does not wait.
func (r *Router) Watch(ctx context.Context, client kubernetes.Interface, all, pods, system informers.SharedInformerFactory) error {
	r.nodes = all.Core().V1().Nodes().Lister()
	r.services = all.Core().V1().Services().Lister()
	r.pods = pods.Core().V1().Pods().Lister()
	watched := []cache.SharedIndexInformer{all.Core().V1().Nodes().Informer(), all.Core().V1().Services().Informer(), pods.Core().V1().Pods().Informer()}
	if allowed(ctx, func(o metav1.ListOptions) error {
		_, err := client.DiscoveryV1().EndpointSlices("").List(ctx, o)
		return err
	}) {
		slices := all.Discovery().V1().EndpointSlices()
		r.slices = slices.Lister()
		watched = append(watched, slices.Informer())
	}
	if allowed(ctx, func(o metav1.ListOptions) error {
		_, err := client.CoreV1().ConfigMaps(metav1.NamespaceSystem).List(ctx, o)
		return err
	}) {
		r.cms = system.Core().V1().ConfigMaps().Lister()
		watched = append(watched, system.Core().V1().ConfigMaps().Informer())
	}
	if allowed(ctx, func(o metav1.ListOptions) error {
		_, err := client.AppsV1().DaemonSets(metav1.NamespaceSystem).List(ctx, o)
		return err
	}) {
		r.dss = system.Apps().V1().DaemonSets().Lister()
		watched = append(watched, system.Apps().V1().DaemonSets().Informer())
	}
	if _, err := pods.Core().V1().Pods().Informer().AddEventHandler(r.hostPortEvents()); err != nil {
		return fmt.Errorf("watch for the pod network: %w", err)
	}
	for _, inf := range watched {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { r.gen.Add(1) },
			UpdateFunc: func(any, any) { r.gen.Add(1) },
			DeleteFunc: func(any) { r.gen.Add(1) },
		}); err != nil {
			return fmt.Errorf("watch for the pod network: %w", err)
		}
	}
	return nil
}

// allowed tries a one-item list: false when the identity may not list.
func allowed(ctx context.Context, list func(metav1.ListOptions) error) bool {
	err := list(metav1.ListOptions{Limit: 1})
	if apierrors.IsForbidden(err) {
		klog.V(1).InfoS("pod network model: not allowed to list; the model goes without it", "err", err)
		return false
	}
	return true
}

// Model is the checker of the cluster as the informers see it now.
func (r *Router) Model() *reach.Checker {
	c, _ := r.build()
	return c
}

// build is the model and the cluster DNS records of the informers' view
// now, rebuilt only when an informer event came since the last build.
func (r *Router) build() (*reach.Checker, *dns.Records) {
	gen := r.gen.Load()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.checker != nil && r.builtAt == gen {
		return r.checker, r.records
	}
	s := r.snapshot()
	records := reach.ClusterRecords(s, ClusterDomain)
	c := reach.New(network.Build(s), records)
	c.Pick = pickBackend
	r.checker, r.records, r.builtAt = c, records, gen
	return c, records
}

// AnswerDNS answers one DNS message (wire format) from the cluster's
// records as the informers see them now: what CoreDNS's kubernetes plugin
// serves from the API, for the emulated CoreDNS pods (program.Sys.ClusterDNS).
func (r *Router) AnswerDNS(query []byte, tcp bool) ([]byte, error) {
	req := new(miekg.Msg)
	if err := req.Unpack(query); err != nil {
		return nil, fmt.Errorf("unpack DNS query: %w", err)
	}
	_, records := r.build()
	return records.Reply(req, dns.ReplySize(req, tcp)).Pack()
}

func (r *Router) snapshot() *network.Snapshot {
	s := &network.Snapshot{K8sMinor: r.minor}
	s.Nodes, _ = r.nodes.List(labels.Everything())
	s.Pods, _ = r.pods.List(labels.Everything())
	for i, p := range s.Pods {
		if p.Spec.HostNetwork || p.Status.Phase == corev1.PodRunning && p.Status.PodIP != "" {
			continue
		}
		if ip, ok := r.running.Load(p.Namespace + "/" + p.Name); ok {
			// The API has not heard yet: a copy says what the node knows.
			p = p.DeepCopy()
			p.Status.Phase, p.Status.PodIP = corev1.PodRunning, ip.(netip.Addr).String()
			p.Status.PodIPs = []corev1.PodIP{{IP: p.Status.PodIP}}
			s.Pods[i] = p
		}
	}
	s.Services, _ = r.services.List(labels.Everything())
	if r.slices != nil {
		s.EndpointSlices, _ = r.slices.List(labels.Everything())
	}
	if r.cms != nil {
		s.ConfigMaps, _ = r.cms.List(labels.Everything())
	}
	if r.dss != nil {
		s.DaemonSets, _ = r.dss.List(labels.Everything())
	}
	return s
}

// ClusterDomain is the kubelet's --cluster-domain default.
const ClusterDomain = "cluster.local"

// pickBackend balances connections at random, as kube-proxy's iptables
// rules and HNS load balancers do, except that a Service with ClientIP
// session affinity keeps a client on one backend.
func pickBackend(svc *corev1.Service, src netip.Addr, n int) int {
	if svc.Spec.SessionAffinity == corev1.ServiceAffinityClientIP && src.IsValid() {
		h := fnv.New32a()
		h.Write(src.AsSlice())
		return int(h.Sum32() % uint32(n))
	}
	return rand.IntN(n)
}

// Route implements vnet.Router.
func (r *Router) Route(src vnet.Host, proto string, dst netip.AddrPort) (netip.AddrPort, error) {
	if _, ok := r.controlPlane.Load(dst); ok && proto == "tcp" {
		return dst, nil
	}
	c := r.Model()
	if !c.Known(dst.Addr()) {
		return netip.AddrPort{}, &routeError{errno: syscall.ENETUNREACH, reason: dst.Addr().String() + " is outside the cluster, and the emulated cluster has no route out of this machine"}
	}
	res, err := c.Verdict(reach.Request{Source: src.Source, Target: dst.Addr().String(), Port: int(dst.Port()), Protocol: proto})
	if err != nil {
		return netip.AddrPort{}, &routeError{errno: syscall.EHOSTUNREACH, reason: err.Error()}
	}
	if !res.Reachable {
		errno := syscall.ETIMEDOUT // dropped: the client waits, then gives up
		if strings.Contains(res.Reason, "rejects") {
			errno = syscall.ECONNREFUSED
		}
		return netip.AddrPort{}, &routeError{errno: errno, reason: res.Reason, rules: res.Rules}
	}
	if backend, ok := res.BackendAddr(); ok {
		return backend, nil
	}
	return dst, nil
}

// Lookup implements vnet.Router: localhost, then the cluster DNS with the
// pod's resolver rules (one DNS suffix on Windows, DNS-1).
func (r *Router) Lookup(_ context.Context, src vnet.Host, name string) ([]netip.Addr, error) {
	if strings.EqualFold(strings.TrimSuffix(name, "."), "localhost") {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	ip, _, err := r.Model().Lookup(src.Source, name)
	if err != nil || !ip.IsValid() {
		return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
	}
	return []netip.Addr{ip}, nil
}

// routeError is a connection the model says fails: the program sees the
// errno; the reason and rules are the model's (what `winkube net check`
// prints), kept for a debugger's %+v.
type routeError struct {
	errno  syscall.Errno
	reason string
	rules  []string
}

func (e *routeError) Error() string { return e.errno.Error() }
func (e *routeError) Unwrap() error { return e.errno }
