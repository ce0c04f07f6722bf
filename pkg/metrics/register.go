package metrics

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregator "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	"k8s.io/utils/ptr"
)

// endpointAddress is the EndpointSlice's address. The apiserver never dials
// it (it dials the ClusterIP, which Dial answers), but the aggregator calls
// an APIService available only when its Service has a ready endpoint, and
// validation refuses loopback. TEST-NET-1 (RFC 5737) routes nowhere.
const endpointAddress = "192.0.2.1"

// register creates or updates the Service, its EndpointSlice and the
// APIService v1beta1.metrics.k8s.io.
func (s *Server) register(ctx context.Context, agg aggregator.Interface) error {
	svc, err := s.ensureService(ctx)
	if err != nil {
		return fmt.Errorf("metrics API service %s/%s: %w", ServiceNamespace, ServiceName, err)
	}
	s.mu.Lock()
	s.clusterIP = svc.Spec.ClusterIP
	s.mu.Unlock()
	if err := s.ensureEndpointSlice(ctx); err != nil {
		return fmt.Errorf("metrics API endpoints %s/%s: %w", ServiceNamespace, ServiceName, err)
	}
	if err := s.ensureAPIService(ctx, agg); err != nil {
		return fmt.Errorf("metrics API APIService v1beta1.metrics.k8s.io: %w", err)
	}
	return nil
}

func (s *Server) ensureService(ctx context.Context) (*corev1.Service, error) {
	want := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: ServiceName, Namespace: ServiceNamespace, Labels: map[string]string{"app.kubernetes.io/managed-by": "winkube"}},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{
			Name: "https", Port: servicePort, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString("https"),
		}}},
	}
	svcs := s.client.CoreV1().Services(ServiceNamespace)
	got, err := svcs.Create(ctx, want, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return svcs.Get(ctx, ServiceName, metav1.GetOptions{})
	}
	return got, err
}

func (s *Server) ensureEndpointSlice(ctx context.Context) error {
	want := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: ServiceName, Namespace: ServiceNamespace, Labels: map[string]string{
			discoveryv1.LabelServiceName: ServiceName,
			discoveryv1.LabelManagedBy:   "winkube.io",
		}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{endpointAddress}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To[int32](servicePort), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
	slices := s.client.DiscoveryV1().EndpointSlices(ServiceNamespace)
	_, err := slices.Create(ctx, want, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// ensureAPIService points the group at the Service with this run's CA.
func (s *Server) ensureAPIService(ctx context.Context, agg aggregator.Interface) error {
	spec := apiregistrationv1.APIServiceSpec{
		Service:              &apiregistrationv1.ServiceReference{Namespace: ServiceNamespace, Name: ServiceName, Port: ptr.To[int32](servicePort)},
		Group:                "metrics.k8s.io",
		Version:              "v1beta1",
		CABundle:             s.caBundle,
		GroupPriorityMinimum: 100,
		VersionPriority:      100,
	}
	api := agg.ApiregistrationV1().APIServices()
	got, err := api.Get(ctx, "v1beta1.metrics.k8s.io", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = api.Create(ctx, &apiregistrationv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1beta1.metrics.k8s.io"}, Spec: spec}, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	got.Spec = spec
	_, err = api.Update(ctx, got, metav1.UpdateOptions{})
	return err
}
