package webhook

import (
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	nodelisters "k8s.io/client-go/listers/node/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/windows"
)

// node is what placement needs of one node: its facts from the rule
// book and the object, for label matching.
type node struct {
	windows.Host
	obj *corev1.Node
}

// nodeOf reads the node's facts with windows.HostOf. The build drops its
// revision: placement compares builds, and the revision never matters
// (IMG-2), so nodes of one build share their image checks.
func nodeOf(n *corev1.Node) *node {
	h := windows.HostOf(n)
	h.Build = h.Build.WithoutRevision()
	return &node{Host: h, obj: n}
}

// cluster is what the handler knows of the cluster: nodes and
// RuntimeClasses from informers, and the server's minor version. Without a
// client it knows nothing and every decision works from the pod alone.
type cluster struct {
	nodes   corelisters.NodeLister
	classes nodelisters.RuntimeClassLister
	synced  []cache.InformerSynced
	minor   atomic.Int64
	stop    chan struct{}
	once    sync.Once
	// known is closed when the version is known and the caches synced.
	known chan struct{}

	mu        sync.Mutex
	converted map[*corev1.Node]*node
}

// newCluster starts the informers and the version discovery. fixedMinor
// is the version from the options, 0 to ask the server.
func newCluster(client kubernetes.Interface, fixedMinor int, logf func(string, ...any)) *cluster {
	c := &cluster{stop: make(chan struct{}), known: make(chan struct{})}
	c.minor.Store(int64(fixedMinor))
	if client == nil {
		close(c.known)
		return c
	}
	factory := informers.NewSharedInformerFactory(client, 10*time.Minute)
	nodeInf := factory.Core().V1().Nodes()
	classInf := factory.Node().V1().RuntimeClasses()
	c.nodes, c.classes = nodeInf.Lister(), classInf.Lister()
	c.synced = []cache.InformerSynced{nodeInf.Informer().HasSynced, classInf.Informer().HasSynced}
	factory.Start(c.stop)
	go c.await(client, fixedMinor, logf)
	return c
}

// await discovers the version (unless fixed) and waits for the caches,
// then marks the cluster known; until then decisions use no node
// knowledge rather than wait.
func (c *cluster) await(client kubernetes.Interface, fixedMinor int, logf func(string, ...any)) {
	if fixedMinor == 0 {
		minor := kubeversion.DefaultMinor
		if v, err := client.Discovery().ServerVersion(); err != nil {
			logf("webhook: reading the server version: %v; assuming 1.%d", err, minor)
		} else if m, err := kubeversion.ServerMinor(v.Major, v.Minor); err != nil {
			logf("webhook: server version %s: %v; assuming 1.%d", v.GitVersion, err, minor)
		} else {
			minor = m
		}
		c.minor.Store(int64(minor))
	}
	if cache.WaitForCacheSync(c.stop, c.synced...) {
		close(c.known)
	}
}

// ready reports whether the cluster's state is known.
func (c *cluster) ready() bool {
	select {
	case <-c.known:
		return true
	default:
		return false
	}
}

// close stops the informers.
func (c *cluster) close() { c.once.Do(func() { close(c.stop) }) }

// kubernetesMinor is the server's minor version; until discovery answers,
// the version winkube runs.
func (c *cluster) kubernetesMinor() int {
	if m := int(c.minor.Load()); m > 0 {
		return m
	}
	return kubeversion.DefaultMinor
}

// nodeList returns the nodes, nil when not known (yet).
func (c *cluster) nodeList() []*node {
	if c.nodes == nil || !c.ready() {
		return nil
	}
	objs, err := c.nodes.List(labels.Everything())
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.converted == nil || len(c.converted) > 2*len(objs)+16 {
		c.converted = map[*corev1.Node]*node{} // drop nodes gone or replaced
	}
	out := make([]*node, 0, len(objs))
	for _, obj := range objs {
		// The informer replaces an object on every change, so the pointer
		// identifies one version of a node.
		n, ok := c.converted[obj]
		if !ok {
			n = nodeOf(obj)
			c.converted[obj] = n
		}
		out = append(out, n)
	}
	return out
}

// runtimeClass returns the named RuntimeClass; nil when unknown.
func (c *cluster) runtimeClass(name string) *nodev1.RuntimeClass {
	if c.classes == nil || !c.ready() {
		return nil
	}
	rc, err := c.classes.Get(name)
	if err != nil {
		return nil
	}
	return rc
}

// selectedNodes are the nodes whose labels satisfy the spec's nodeName,
// nodeSelector and required node affinity.
func selectedNodes(spec *corev1.PodSpec, nodes []*node) []*node {
	affinity := nodeaffinity.GetRequiredNodeAffinity(&corev1.Pod{Spec: *spec})
	var out []*node
	for _, n := range nodes {
		if spec.NodeName != "" && spec.NodeName != n.Name {
			continue
		}
		if ok, err := affinity.Match(n.obj); err == nil && ok {
			out = append(out, n)
		}
	}
	return out
}
