// Package loadbalancer gives LoadBalancer Services an address from a pool,
// as MetalLB or cloud-provider-kind would on a real cluster: it writes
// status.loadBalancer.ingress, emits the upstream service controller's
// events, and frees the address when the Service goes away or stops being a
// LoadBalancer. The network model (pkg/network) programs the matching
// Windows load balancers (KP-3); package hostport serves the addresses of
// a loopback pool on the host.
//
// It claims every LoadBalancer Service without spec.loadBalancerClass, so
// run it only in a cluster where nothing else does (winkube up's own
// cluster, not one that `winkube nodes` joins). It sets no finalizer: a
// deleted Service's address is free once the Service is gone, even if the
// controller was not running to see it go.
package loadbalancer

import (
	"context"
	"fmt"
	"net/netip"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
)

// Component is the event source, the upstream service controller's name.
const Component = "service-controller"

// Event reasons and messages, worded as k8s.io/cloud-provider's service
// controller words them.
const (
	ReasonEnsuring   = "EnsuringLoadBalancer"
	ReasonEnsured    = "EnsuredLoadBalancer"
	ReasonDeleting   = "DeletingLoadBalancer"
	ReasonDeleted    = "DeletedLoadBalancer"
	ReasonSyncFailed = "SyncLoadBalancerFailed"

	msgEnsuring = "Ensuring load balancer"
	msgEnsured  = "Ensured load balancer"
	msgDeleting = "Deleting load balancer"
	msgDeleted  = "Deleted load balancer"
)

// Controller assigns pool addresses to LoadBalancer Services.
type Controller struct {
	client   kubernetes.Interface
	lister   corelisters.ServiceLister
	queue    workqueue.TypedRateLimitingInterface[string]
	events   record.EventBroadcaster
	recorder record.EventRecorder

	// pool and pending belong to the single worker after Start returns.
	pool *pool
	// pending holds the keys of Services left without an address; a freed
	// address requeues them.
	pending map[string]bool

	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// Start watches Services and assigns addresses from pool (an IPv4 prefix,
// /30 or larger) until ctx ends or Close is called. Before it returns it
// rebuilds the assignments from the Services' status, so a restarted
// controller keeps every address where it was.
func Start(ctx context.Context, client kubernetes.Interface, pool netip.Prefix) (*Controller, error) {
	p, err := newPool(pool)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0)
	informer := factory.Core().V1().Services()
	c := &Controller{
		client:  client,
		lister:  informer.Lister(),
		queue:   workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](100*time.Millisecond, 30*time.Second)),
		events:  record.NewBroadcaster(record.WithContext(ctx)),
		pool:    p,
		pending: map[string]bool{},
		cancel:  cancel,
	}
	c.events.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	c.recorder = c.events.NewRecorder(scheme.Scheme, corev1.EventSource{Component: Component})
	if _, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
		DeleteFunc: c.enqueue,
	}); err != nil {
		c.Close()
		return nil, fmt.Errorf("watching Services: %w", err)
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.Informer().HasSynced) {
		c.Close()
		factory.Shutdown()
		return nil, fmt.Errorf("listing Services for the load balancer pool: %w", context.Cause(ctx))
	}
	if err := c.rebuild(); err != nil {
		c.Close()
		factory.Shutdown()
		return nil, err
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer factory.Shutdown()
		c.run(ctx)
	}()
	return c, nil
}

// Close stops the controller and waits for its worker. Addresses stay in
// the Services' status; a new controller picks them up.
func (c *Controller) Close() {
	c.once.Do(func() {
		c.cancel()
		c.queue.ShutDown()
		c.wg.Wait()
		c.events.Shutdown()
	})
}

func (c *Controller) enqueue(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(key)
}

// rebuild claims the in-pool addresses the Services' status already shows,
// oldest Service first, so a second Service showing the same address (it
// cannot happen with one controller, but status is writable by anyone)
// loses it and gets a new one when it is synced.
func (c *Controller) rebuild() error {
	services, err := c.lister.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("listing Services for the load balancer pool: %w", err)
	}
	sort.Slice(services, func(i, j int) bool {
		a, b := services[i], services[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return keyOf(a) < keyOf(b)
	})
	for _, svc := range services {
		if !wantsAddress(svc) {
			continue
		}
		for _, ing := range svc.Status.LoadBalancer.Ingress {
			if a, err := netip.ParseAddr(ing.IP); err == nil && c.pool.claim(keyOf(svc), a) == nil {
				break
			}
		}
	}
	return nil
}

func (c *Controller) run(ctx context.Context) {
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	for c.processNext(ctx) {
	}
}

func (c *Controller) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if err := c.sync(ctx, key); err != nil {
		if ctx.Err() == nil {
			utilruntime.HandleError(fmt.Errorf("load balancer for Service %s: %w", key, err))
		}
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

// wantsAddress: a LoadBalancer Service without spec.loadBalancerClass. A
// class means another controller implements its load balancer.
func wantsAddress(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.LoadBalancerClass == nil
}

func keyOf(svc *corev1.Service) string { return svc.Namespace + "/" + svc.Name }
