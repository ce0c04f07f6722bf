// Package hostport makes LoadBalancer Services reachable from the machine
// that runs the cluster, as cloud-provider-kind does for kind: for every
// TCP port of every status.loadBalancer.ingress IP in a loopback pool it
// listens on IP:port on the host and hands each accepted connection to a
// dial function (in `winkube up`, the node agent's DialFromOutside, which
// takes it through the Windows data-plane model to the emulated server).
//
// It binds loopback addresses only: the pool must lie inside 127.0.0.0/8
// and every address is checked again before it is bound, so nothing the
// cluster serves is reachable from another machine.
package hostport

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// DialFunc connects to addr ("IP:port") inside the cluster on behalf of a
// client outside it.
type DialFunc func(ctx context.Context, addr string) (net.Conn, error)

// ListenFunc binds addr ("IP:port") for TCP on the host.
type ListenFunc func(ctx context.Context, addr string) (net.Listener, error)

// Options configure a Forwarder.
type Options struct {
	// Pool is the LoadBalancer pool; only ingress IPs inside it are served.
	// It must lie inside 127.0.0.0/8 (Servable).
	Pool netip.Prefix
	// Dial connects an accepted connection to the Service. Required.
	Dial DialFunc
	// Warn receives one line per address that cannot be served, once until
	// the Service changes. Optional.
	Warn func(line string)
	// Listen binds an address; nil is the host's TCP stack. Tests replace
	// it to see what a host refusing a port looks like.
	Listen ListenFunc
}

// Servable reports whether every address of pool is a loopback address of
// the host, so that the pool can be served without reaching the network.
func Servable(pool netip.Prefix) bool {
	return pool.IsValid() && pool.Bits() >= loopbackNet.Bits() && loopbackNet.Contains(pool.Addr())
}

var loopbackNet = netip.MustParsePrefix("127.0.0.0/8")

// Forwarder serves LoadBalancer Services' addresses on the host.
type Forwarder struct {
	opts    Options
	ctx     context.Context
	cancel  context.CancelFunc
	factory informers.SharedInformerFactory

	mu      sync.Mutex
	stopped bool
	byKey   map[string]map[string]*listener // Service key → "IP:port" → listener
	warned  map[string]map[string]bool      // Service key → "IP:port" already warned about
	wg      sync.WaitGroup                  // accept loops and connections
	once    sync.Once
}

// Start watches Services and serves their loopback ingress addresses until
// ctx ends or Stop is called. It returns once the Services already there
// are served (or warned about).
func Start(ctx context.Context, client kubernetes.Interface, o Options) (*Forwarder, error) {
	if !Servable(o.Pool) {
		return nil, fmt.Errorf("load balancer pool %s is not inside 127.0.0.0/8: its addresses cannot be served on this machine's loopback (network.loadBalancerCIDR)", o.Pool)
	}
	if o.Dial == nil {
		return nil, fmt.Errorf("hostport: no dial function")
	}
	if o.Listen == nil {
		o.Listen = listenTCP
	}
	ctx, cancel := context.WithCancel(ctx)
	f := &Forwarder{
		opts:    o,
		ctx:     ctx,
		cancel:  cancel,
		factory: informers.NewSharedInformerFactoryWithOptions(client, 0),
		byKey:   map[string]map[string]*listener{},
		warned:  map[string]map[string]bool{},
	}
	informer := f.factory.Core().V1().Services().Informer()
	reg, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { f.update(obj, false) },
		UpdateFunc: func(_, obj any) { f.update(obj, false) },
		DeleteFunc: func(obj any) { f.update(obj, true) },
	})
	if err != nil {
		f.Stop()
		return nil, fmt.Errorf("watching Services for their load balancer addresses: %w", err)
	}
	// A caller that only cancels ctx still gets its ports back.
	context.AfterFunc(ctx, f.Stop)
	f.factory.Start(ctx.Done())
	// The handler's HasSynced: the informer's says only that its cache
	// holds the first list, not that update has served it.
	if !cache.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
		f.Stop()
		return nil, fmt.Errorf("listing Services for their load balancer addresses: %w", context.Cause(ctx))
	}
	return f, nil
}

// Stop closes every listener and connection and waits for their
// goroutines. Safe to call twice.
func (f *Forwarder) Stop() {
	f.once.Do(func() {
		f.cancel()
		f.factory.Shutdown()
		f.mu.Lock()
		f.stopped = true
		for key := range f.byKey {
			f.closeAll(key)
		}
		f.mu.Unlock()
		f.wg.Wait()
	})
}

// Serving lists the addresses listened on, "IP:port", for tests and
// diagnostics.
func (f *Forwarder) Serving() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, ls := range f.byKey {
		for addr := range ls {
			out = append(out, addr)
		}
	}
	return out
}

// update brings one Service's listeners in line with its status; a
// deleted Service keeps none. The informer calls its handlers one at a
// time; the lock is for Stop.
func (f *Forwarder) update(obj any, deleted bool) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	var want []string
	if svc, ok := obj.(*corev1.Service); ok && !deleted {
		want = addresses(svc, f.opts.Pool)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return
	}
	f.reconcile(key, want)
}

// reconcile closes the listeners of key not in want and binds the missing
// ones. Called with f.mu held.
func (f *Forwarder) reconcile(key string, want []string) {
	have := f.byKey[key]
	keep := map[string]bool{}
	for _, addr := range want {
		keep[addr] = true
	}
	for addr, l := range have {
		if !keep[addr] {
			l.close()
			delete(have, addr)
		}
	}
	f.forgetWarnings(key, keep)
	for _, addr := range want {
		if _, ok := have[addr]; ok {
			continue
		}
		l, err := f.listen(addr)
		if err != nil {
			f.warn(key, addr, err)
			continue
		}
		if have == nil {
			have = map[string]*listener{}
			f.byKey[key] = have
		}
		have[addr] = l
	}
	if len(have) == 0 {
		delete(f.byKey, key)
	}
}

// closeAll closes every listener of key. Called with f.mu held.
func (f *Forwarder) closeAll(key string) {
	for _, l := range f.byKey[key] {
		l.close()
	}
	delete(f.byKey, key)
}

// addresses are the "IP:port" a Service should be served on: each of its
// TCP ports on each ingress IP inside the pool. UDP and SCTP ports are
// left out; only TCP is forwarded.
func addresses(svc *corev1.Service, pool netip.Prefix) []string {
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, ing := range svc.Status.LoadBalancer.Ingress {
		ip, err := netip.ParseAddr(ing.IP)
		if err != nil || !pool.Contains(ip) || !ip.IsLoopback() {
			continue
		}
		for _, p := range svc.Spec.Ports {
			if p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
				continue
			}
			addr := netip.AddrPortFrom(ip, uint16(p.Port)).String()
			if !seen[addr] {
				seen[addr] = true
				out = append(out, addr)
			}
		}
	}
	return out
}
