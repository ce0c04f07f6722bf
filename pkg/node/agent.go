package node

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"sync"
	"time"

	"github.com/winkube/winkube/pkg/emu/vnet"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	listerscorev1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/node/internal/images"
	"github.com/winkube/winkube/pkg/node/internal/kubeletapi"
	"github.com/winkube/winkube/pkg/node/internal/podfs"
	"github.com/winkube/winkube/pkg/node/internal/podnet"
	"github.com/winkube/winkube/pkg/node/internal/podworker"
)

// Options configure an agent.
type Options struct {
	// Config reaches the API server.
	Config *rest.Config
	// Cluster lists the node pools to emulate and the network they join.
	Cluster *v1alpha1.Cluster
	// Progress, when set, receives one line per milestone
	// ("node win2019-1 registered", "node win2019-1 Ready").
	Progress io.Writer
	// KubeletVersion is reported in nodeInfo; default kubeversion.Default.
	KubeletVersion string
	// PodWorkers is the number of goroutines that handle pods; default 4
	// per core, more for large clusters (podWorkerCount in queue.go).
	PodWorkers int
	// Images answers image platforms for pulls; nil is the built-in
	// catalog (registry.Flags builds one for --resolve-images registry).
	Images imageinfo.Resolver
	// Kubelet, when set, serves the kubelet API on real listeners for an
	// apiserver in another process (internal/kubeletapi); a *ListenError
	// when they cannot be bound, before any node registers.
	Kubelet *KubeletServing
	// Nodes, when set, picks which nodes of Cluster this agent runs (the
	// rest are left to other agents, see pkg/shard); nil runs them all.
	Nodes func(name string) bool
	// UnknownImages is what a pull does with an image neither the catalog
	// nor a registry can answer for: UnknownImagesUnverified (the
	// default, "") or UnknownImagesStrict.
	UnknownImages string
	// LayerDir keeps the writable layers of running containers across a
	// stop (Close) for the agent that adopts them: the data dir's layers
	// directory under winkube up. Empty: not kept, with an event for each
	// container that wrote files.
	LayerDir string

	// kubelets, when set, give each node the API client of its kubelet
	// (kubeletclient.go); without them the nodes write with the agent's.
	kubelets *kubeletClients
	// syncPeriod replaces the kubelet's sync period (podfs's
	// VolumeSyncPeriod) in tests, which cannot wait a minute for a volume
	// to follow its object.
	syncPeriod time.Duration
}

// Agent runs the emulated nodes of one cluster config in this process.
// Once started it has no fatal errors: like kubelets, its nodes retry every
// API call that fails, say so through Options.Progress (once when a call
// starts failing, once when it works again), and NotReady tells why a node
// is not Ready.
type Agent struct {
	client     kubernetes.Interface
	cluster    *v1alpha1.Cluster
	progress   *progress
	nodes      map[string]*emuNode
	names      []string
	factory    informers.SharedInformerFactory
	podFactory informers.SharedInformerFactory
	nodeLister listerscorev1.NodeLister
	podLister  listerscorev1.PodLister
	// claims hold the data of PersistentVolumeClaims (workernode.go).
	claimMu sync.Mutex
	claims  map[string]*vfs.Volume
	// serviceLister feeds the service link variables of containers.
	serviceLister listerscorev1.ServiceLister
	events        *eventSinks
	cidrs         *podnet.CIDRPicker
	kubelet       *kubeletapi.Server
	// fabric carries the emulated pods' traffic; router decides it with
	// the network model (netroute.go); system watches kube-system for it.
	fabric *vnet.Fabric
	router *podnet.Router
	system informers.SharedInformerFactory
	// minor is the kubelets' Kubernetes minor version.
	minor int
	// apiserver is the host:port the agent reaches kube-apiserver at; pods
	// reach it there through the "kubernetes" Service (egress.go).
	apiserver string

	// clock drives the queues and the pod workers.
	clock      clock.WithTicker
	pods       workqueue.TypedDelayingInterface[*podworker.Worker]
	beats      workqueue.TypedDelayingInterface[beatJob]
	podWorkers int
	// imageSource answers every node's pulls, with the pods' pull
	// secrets (images.Source).
	imageSource *images.Source
	// unknownImages is Options.UnknownImages (images.Config's Strict).
	unknownImages string
	layerDir      string
	// syncPeriod is how often a running pod's volumes are written again
	// from their sources (internal/podfs's volumesync.go).
	syncPeriod time.Duration

	// readyMu guards readyNodes and allReady (nodeSeen).
	readyMu    sync.Mutex
	readyNodes map[string]bool
	allReady   bool

	runCtx context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// programs counts the container programs running on goroutines of
	// their own (podworker.Node.Programs).
	programs  sync.WaitGroup
	ready     chan struct{}
	closeOnce sync.Once
}

// Start registers every node of the cluster config, then starts heartbeats
// and pod handling. It returns once the nodes exist in the API; Ready says
// when they are all Ready. Nodes that already exist are updated and their
// pods adopted, so a second Start after a restart picks up where the first
// left off.
func Start(ctx context.Context, o Options) (*Agent, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(o.Config)
	if cfg.QPS == 0 {
		// One agent speaks for many kubelets: its limits grow with the
		// nodes it runs (clientLimits in queue.go).
		cfg.QPS, cfg.Burst = clientLimits(len(o.Cluster.Nodes()))
	}
	o.kubelets = newKubeletClients(cfg)
	client, err := kubernetes.NewForConfig(o.kubelets.agentConfig())
	if err != nil {
		return nil, fmt.Errorf("create API client: %w", err)
	}
	a, err := newAgent(client, o)
	if err != nil {
		return nil, err
	}
	if u, err := url.Parse(cfg.Host); err == nil {
		a.apiserver = u.Host
	}
	runCtx, cancel := context.WithCancel(context.Background())
	a.runCtx, a.cancel = runCtx, cancel
	if err := a.start(ctx, runCtx); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

func (o *Options) validate() error {
	if o.Config == nil {
		return errors.New("node agent: Options.Config is required")
	}
	if o.Cluster == nil {
		return errors.New("node agent: Options.Cluster is required")
	}
	if len(o.Cluster.Nodes()) == 0 {
		return errors.New("node agent: the cluster config has no nodes (nodePools with count > 0)")
	}
	return CheckUnknownImages(o.UnknownImages)
}

// CheckUnknownImages fails for a value of Options.UnknownImages (the
// --image-resolution flag of up and nodes) that is neither of the two.
func CheckUnknownImages(v string) error {
	switch v {
	case "", UnknownImagesUnverified, UnknownImagesStrict:
		return nil
	}
	return fmt.Errorf("--image-resolution %q: want %s or %s", v, UnknownImagesUnverified, UnknownImagesStrict)
}

func newAgent(client kubernetes.Interface, o Options) (*Agent, error) {
	version := o.KubeletVersion
	if version == "" {
		version = defaultKubeletVer
	}
	a := &Agent{
		client:      client,
		cluster:     o.Cluster,
		progress:    &progress{w: o.Progress},
		nodes:       map[string]*emuNode{},
		ready:       make(chan struct{}),
		clock:       realClock,
		imageSource: &images.Source{Resolver: o.Images, Client: client},

		unknownImages: o.UnknownImages,
		layerDir:      o.LayerDir,
		syncPeriod:    cmp.Or(o.syncPeriod, podfs.VolumeSyncPeriod),

		readyNodes: map[string]bool{},
	}
	a.podWorkers = podWorkerCount(len(o.Cluster.Nodes()), o.PodWorkers)
	if m, err := kubeversion.ParseMinor(version); err == nil {
		a.minor = m
	}
	a.router = podnet.NewRouter(a.minor)
	a.fabric = vnet.New(a.router)
	a.newQueues()
	cidrs, err := podnet.NewCIDRPicker(o.Cluster.Network.ClusterCIDR, o.Cluster.Network.NodeCIDRMaskSize)
	if err != nil {
		return nil, err
	}
	a.cidrs = cidrs
	a.events = &eventSinks{}
	for _, n := range o.Cluster.Nodes() {
		if o.Nodes != nil && !o.Nodes(n.Name) {
			continue
		}
		host, err := newPersonality(n.Pool)
		if err != nil {
			return nil, err
		}
		spec := &nodeSpec{name: n.Name, pool: n.Pool, ip: n.InternalIP.String(), host: host, kubelet: version}
		client := a.client
		if o.kubelets != nil {
			if client, err = o.kubelets.forNode(spec); err != nil {
				return nil, err
			}
		}
		a.nodes[n.Name] = newEmuNode(a, spec, client, a.events.recorder(len(a.names), n.Name))
		a.names = append(a.names, n.Name)
	}
	if len(a.names) == 0 {
		return nil, errors.New("node agent: Options.Nodes picks none of the cluster config's nodes")
	}
	sort.Strings(a.names)
	a.kubelet = newKubeletServer(a)
	if err := a.listenKubelet(o.Kubelet); err != nil {
		return nil, err
	}
	return a, nil
}

// eventSinks gives each node's events the sink of its kubelet's client.
func (a *Agent) eventSinks() func(host string) record.EventSink {
	sinks := map[string]record.EventSink{}
	for name, n := range a.nodes {
		sinks[name] = &typedcorev1.EventSinkImpl{Interface: n.client.CoreV1().Events("")}
	}
	agent := &typedcorev1.EventSinkImpl{Interface: a.client.CoreV1().Events("")}
	return func(host string) record.EventSink {
		if s, ok := sinks[host]; ok {
			return s
		}
		return agent
	}
}

// start registers the nodes, syncs the informers and launches the loops.
func (a *Agent) start(ctx, runCtx context.Context) error {
	a.events.start(a.eventSinks())
	if err := a.registerAll(ctx); err != nil {
		return err
	}
	a.factory = informers.NewSharedInformerFactoryWithOptions(a.client, 0, informers.WithTransform(nodeView))
	nodeInformer := a.factory.Core().V1().Nodes()
	a.nodeLister = nodeInformer.Lister()
	// The kubelet watches Services for the service link variables.
	a.serviceLister = a.factory.Core().V1().Services().Lister()
	if _, err := nodeInformer.Informer().AddEventHandler(a.nodeHandler()); err != nil {
		return fmt.Errorf("watch nodes: %w", err)
	}
	a.podFactory = informers.NewSharedInformerFactoryWithOptions(a.client, 0,
		informers.WithTransform(dropManagedFields),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermNotEqualSelector("spec.nodeName", "").String()
		}))
	podFactory := a.podFactory
	podInformer := podFactory.Core().V1().Pods()
	a.podLister = podInformer.Lister()
	if _, err := podInformer.Informer().AddEventHandler(a.podHandler()); err != nil {
		return fmt.Errorf("watch pods: %w", err)
	}
	a.system = informers.NewSharedInformerFactoryWithOptions(a.client, 0,
		informers.WithTransform(dropManagedFields), informers.WithNamespace(metav1.NamespaceSystem))
	if err := a.router.Watch(ctx, a.client, a.factory, podFactory, a.system); err != nil {
		return err
	}
	for _, f := range []informers.SharedInformerFactory{a.factory, podFactory, a.system} {
		f.Start(runCtx.Done())
	}
	for _, f := range []informers.SharedInformerFactory{a.factory, podFactory, a.system} {
		for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
			if !ok {
				return fmt.Errorf("sync %v cache: %w", typ, ctx.Err())
			}
		}
	}
	a.serveKubeletPorts(runCtx)
	a.serveAPIServer(ctx, runCtx)
	a.runQueues(runCtx)
	return nil
}

// dropManagedFields removes metadata.managedFields from the objects the
// informers cache: the agent never reads them, and they are about a quarter
// of a cached pod (47 MB of the agent's heap at 10,000 pods).
func dropManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// registerAll registers the nodes a few at a time.
func (a *Agent) registerAll(ctx context.Context) error {
	// As many registrations in flight as heartbeat workers (at least 8):
	// 1,000 nodes registered in 6 s with 40, 9 s with 8.
	sem := make(chan struct{}, max(8, beatWorkerCount(len(a.names))))
	errs := make(chan error, len(a.names))
	var wg sync.WaitGroup
	for _, name := range a.names {
		n := a.nodes[name]
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			errs <- n.register(ctx)
		})
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		if err != nil {
			all = append(all, err)
		}
	}
	return firstErrors(all, 3)
}

// firstErrors joins the first n errors and counts the rest: an API server
// that cannot be reached fails every node alike, and a thousand lines of
// the same refusal would bury the one that matters.
func firstErrors(errs []error, n int) error {
	if len(errs) <= n {
		return errors.Join(errs...)
	}
	return errors.Join(append(errs[:n:n], fmt.Errorf("... and %d more", len(errs)-n))...)
}

// Ready is closed when every node has been Ready in the API.
func (a *Agent) Ready() <-chan struct{} { return a.ready }

// NodeNames lists the emulated nodes, sorted.
func (a *Agent) NodeNames() []string { return append([]string(nil), a.names...) }

// Close stops every goroutine. The nodes stay in the API, as they do when a
// real kubelet stops; the node lifecycle controller marks them NotReady
// once their leases expire.
func (a *Agent) Close() error {
	a.closeOnce.Do(func() {
		if a.cancel != nil {
			a.cancel()
		}
		// Stop the informers first: their handlers queue pod workers.
		for _, f := range []informers.SharedInformerFactory{a.factory, a.podFactory, a.system} {
			if f != nil {
				f.Shutdown()
			}
		}
		a.shutDownQueues()
		a.kubelet.Close()
		a.wg.Wait()
		a.waitPrograms()
		// The workers are idle: keep what the containers wrote, before
		// the events saying what could not be kept are flushed.
		a.saveLayers()
		a.events.shutdown()
	})
	return nil
}

// programsGrace bounds how long Close waits for the container programs
// to return once their context ended: a program that ignores it must not
// keep the agent from stopping.
const programsGrace = 10 * time.Second

// waitPrograms waits for the container programs to return: the run
// context is cancelled, and their own clean-up (an embedded etcd's data
// dir, sockets, listeners) happens before they return, so a stopped
// agent leaves nothing of them behind.
func (a *Agent) waitPrograms() {
	done := make(chan struct{})
	go func() {
		a.programs.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(programsGrace):
		klog.InfoS("Container programs did not return within the grace period after the node agent stopped", "grace", programsGrace)
	}
}

// saveLayers keeps every node's containers' writable layers, and drops
// the kept layers of containers no longer there.
func (a *Agent) saveLayers() {
	live := map[string]bool{}
	for _, n := range a.nodes {
		n.saveLayers(live)
	}
	// Prune by what the API shows, and only once it was read whole: a
	// stop right after a start, before every pod was adopted, must not
	// take the layers their containers will come back to.
	if a.layerDir == "" || a.podFactory == nil || !a.podFactory.Core().V1().Pods().Informer().HasSynced() {
		return
	}
	pods, err := a.podLister.List(labels.Everything())
	if err != nil {
		return
	}
	for _, p := range pods {
		for _, cs := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
			live[podfs.LayerID(cs.ContainerID)] = true
		}
	}
	podfs.PruneLayers(a.layerDir, live)
}

// report logs an error the agent recovers from by retrying and that is
// not one of the API calls tracked per node (see apiOp).
func (a *Agent) report(err error) {
	klog.V(2).InfoS("node agent: will retry", "err", err)
}

// progress writes milestone lines, one at a time.
type progress struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *progress) printf(format string, args ...any) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format+"\n", args...)
}
