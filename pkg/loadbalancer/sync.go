package loadbalancer

import (
	"context"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// sync brings one Service's address in line with its spec. A Service that
// cannot get an address stays pending with a Warning event and is retried
// when an address is freed, not on a timer.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // not a key this controller made; nothing to retry
	}
	svc, err := c.lister.Services(ns).Get(name)
	if apierrors.IsNotFound(err) {
		// No finalizer holds the Service back: the address is free as soon
		// as the Service is gone, and a restarted controller never sees it.
		c.release(key)
		return nil
	}
	if err != nil {
		return err
	}
	if !wantsAddress(svc) {
		c.stopServing(key, svc)
		return nil
	}
	addr, err := c.choose(key, svc)
	if err != nil {
		c.pending[key] = true
		c.recorder.Eventf(svc, corev1.EventTypeWarning, ReasonSyncFailed, "Error syncing load balancer: failed to ensure load balancer: %v", err)
		return nil
	}
	delete(c.pending, key)
	if showsOnly(svc, addr) {
		return nil
	}
	return c.writeIngress(ctx, svc, addr)
}

// stopServing frees the address of a Service that is no longer a
// LoadBalancer. The API server clears status.loadBalancer itself on the
// type change, so only the pool and the events are left to do.
func (c *Controller) stopServing(key string, svc *corev1.Service) {
	delete(c.pending, key)
	if _, had := c.pool.assigned(key); !had {
		return
	}
	c.recorder.Event(svc, corev1.EventTypeNormal, ReasonDeleting, msgDeleting)
	c.release(key)
	c.recorder.Event(svc, corev1.EventTypeNormal, ReasonDeleted, msgDeleted)
}

// release frees a key's address and requeues the Services waiting for one.
func (c *Controller) release(key string) {
	delete(c.pending, key)
	if c.pool.release(key) {
		c.requeuePending()
	}
}

func (c *Controller) requeuePending() {
	for k := range c.pending {
		c.queue.Add(k)
	}
}

// choose picks the Service's address: spec.loadBalancerIP when it asks for
// one, else the address it already has, else the lowest free one.
func (c *Controller) choose(key string, svc *corev1.Service) (netip.Addr, error) {
	if want := svc.Spec.LoadBalancerIP; want != "" {
		return c.claimRequested(key, want)
	}
	if a, ok := c.pool.assigned(key); ok {
		return a, nil
	}
	return c.pool.next(key)
}

// claimRequested honours spec.loadBalancerIP if it is in the pool and free.
func (c *Controller) claimRequested(key, want string) (netip.Addr, error) {
	a, err := netip.ParseAddr(want)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("spec.loadBalancerIP %q is not an IP address", want)
	}
	if old, ok := c.pool.assigned(key); ok && old == a {
		return a, nil
	}
	if !c.pool.usable(a) {
		return netip.Addr{}, fmt.Errorf("spec.loadBalancerIP %s is not a usable address of the pool %s (network.loadBalancerCIDR)", a, c.pool.prefix)
	}
	if other, taken := c.pool.holder(a); taken {
		return netip.Addr{}, fmt.Errorf("spec.loadBalancerIP %s is already in use by Service %s", a, other)
	}
	// Moving to the requested address frees the old one for others.
	_, moved := c.pool.assigned(key)
	if err := c.pool.claim(key, a); err != nil {
		return netip.Addr{}, err
	}
	if moved {
		c.requeuePending()
	}
	return a, nil
}

// showsOnly reports whether the status already shows exactly addr as a VIP.
func showsOnly(svc *corev1.Service, addr netip.Addr) bool {
	ing := svc.Status.LoadBalancer.Ingress
	return len(ing) == 1 && ing[0].IP == addr.String() && ing[0].Hostname == "" &&
		ing[0].IPMode != nil && *ing[0].IPMode == corev1.LoadBalancerIPModeVIP
}

// writeIngress sets status.loadBalancer.ingress to addr. A conflict or a
// transient error is retried by the queue; the pool keeps the address for
// the Service meanwhile.
func (c *Controller) writeIngress(ctx context.Context, svc *corev1.Service, addr netip.Addr) error {
	c.recorder.Event(svc, corev1.EventTypeNormal, ReasonEnsuring, msgEnsuring)
	updated := svc.DeepCopy()
	mode := corev1.LoadBalancerIPModeVIP
	updated.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: addr.String(), IPMode: &mode}}
	_, err := c.client.CoreV1().Services(svc.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	switch {
	case apierrors.IsNotFound(err):
		c.release(keyOf(svc))
		return nil
	case err != nil:
		return fmt.Errorf("writing status.loadBalancer: %w", err)
	}
	c.recorder.Event(svc, corev1.EventTypeNormal, ReasonEnsured, msgEnsured)
	return nil
}
