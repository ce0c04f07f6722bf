package dnsserver

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// watch starts the informers that keep the records and waits until their
// first lists are in, so the first answer is already right. No pods: in
// the Corefile's "pods insecure" mode a pod name answers from the
// namespace alone (clusterdns.PodMode), and CoreDNS watches pods only
// for "pods verified".
func (s *Server) watch(ctx context.Context, client kubernetes.Interface) error {
	s.factory = informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTransform(slim))
	r := s.records
	handlers := []struct {
		informer cache.SharedIndexInformer
		handler  cache.ResourceEventHandler
	}{
		{s.factory.Core().V1().Services().Informer(), handlerFor(r.SetService, r.DeleteService)},
		{s.factory.Discovery().V1().EndpointSlices().Informer(), handlerFor(r.SetEndpointSlice, r.DeleteEndpointSlice)},
		{s.factory.Core().V1().Namespaces().Informer(), handlerFor(r.SetNamespace, r.DeleteNamespace)},
	}
	var synced []cache.InformerSynced
	for _, h := range handlers {
		reg, err := h.informer.AddEventHandler(h.handler)
		if err != nil {
			return fmt.Errorf("dns server: watch: %w", err)
		}
		synced = append(synced, reg.HasSynced)
	}
	s.factory.Start(s.stop)
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return fmt.Errorf("dns server: the informers did not list Services, EndpointSlices and Namespaces: %w", context.Cause(ctx))
	}
	return nil
}

// handlerFor feeds one kind of object into the records. Deletions the
// informer missed arrive as tombstones holding the last known object.
func handlerFor[T any](set, del func(*T)) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { apply(set, obj) },
		UpdateFunc: func(_, obj any) { apply(set, obj) },
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			apply(del, obj)
		},
	}
}

func apply[T any](f func(*T), obj any) {
	if o, ok := obj.(*T); ok {
		f(o)
	}
}

// slim drops what the records never read before the informers cache the
// objects.
func slim(obj any) (any, error) {
	switch o := obj.(type) {
	case *discoveryv1.EndpointSlice:
		o.ManagedFields = nil
	case *corev1.Service:
		o.ManagedFields = nil
	case *corev1.Namespace:
		o.ManagedFields = nil
	}
	return obj, nil
}
