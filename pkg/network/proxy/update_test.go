package proxy

import (
	"net/netip"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// Applying one EndpointSlice change gives the same state as building the
// node from scratch with the changed slice, and deleting it releases the
// remote endpoints no other Service uses.
func TestUpdateMatchesSync(t *testing.T) {
	a := svc("a", "10.96.100.1", corev1.ServiceTypeNodePort, port("http", corev1.ProtocolTCP, 80, 80, 30080))
	b := svc("b", "10.96.100.2", corev1.ServiceTypeClusterIP, port("http", corev1.ProtocolTCP, 80, 80, 0))
	sa, sb := both("a", corev1.ProtocolTCP, 80), both("b", corev1.ProtocolTCP, 80)
	p := program(overlayConfig(build2019), []*corev1.Service{a, b}, sa, sb)

	changed := slice("a", "a-1", "http", corev1.ProtocolTCP, 80, ep{localPod, "win-1", true}, ep{"10.244.2.9", "win-2", true})
	p.Update(changed)
	fresh := program(overlayConfig(build2019), []*corev1.Service{a, b}, changed, sb)
	if !reflect.DeepEqual(p.LoadBalancers(), fresh.LoadBalancers()) || !reflect.DeepEqual(p.RemoteEndpoints(), fresh.RemoteEndpoints()) {
		t.Errorf("after Update:\n%+v\n%+v\nfrom scratch:\n%+v\n%+v", p.LoadBalancers(), p.RemoteEndpoints(), fresh.LoadBalancers(), fresh.RemoteEndpoints())
	}
	if hasRemote(p, "10.244.2.9") == false || hasRemote(p, remotePod) == false {
		t.Errorf("remote endpoints %+v: want the new backend and the one b still uses", p.RemoteEndpoints())
	}
	p.Delete(changed)
	if hasRemote(p, "10.244.2.9") {
		t.Errorf("deleted slice's backend still has a remote endpoint")
	}
	for _, lb := range p.LoadBalancers() {
		if lb.Service == "default/a" {
			t.Errorf("load balancer of a Service without endpoints: %+v", lb)
		}
	}
	p.DeleteService("default", "b")
	if n := len(p.LoadBalancers()); n != 0 {
		t.Errorf("%d load balancers after deleting everything", n)
	}
}

func hasRemote(p *Proxier, ip string) bool {
	for _, e := range p.RemoteEndpoints() {
		if e.IPAddress == ip {
			return true
		}
	}
	return false
}

// ServiceEndpoints merges a Service's slices: matching port name and
// protocol, first address, duplicates once, sorted, conditions defaulted
// as kube-proxy reads them.
func TestServiceEndpoints(t *testing.T) {
	s := svc("web", "10.96.100.1", corev1.ServiceTypeClusterIP, port("http", corev1.ProtocolTCP, 80, 8080, 0))
	s1 := slice("web", "web-1", "http", corev1.ProtocolTCP, 8080, ep{"10.244.2.7", "win-2", true}, ep{"10.244.1.5", "win-1", false})
	s2 := slice("web", "web-2", "http", corev1.ProtocolTCP, 8080, ep{"10.244.2.7", "win-2", true})
	other := slice("web", "web-3", "metrics", corev1.ProtocolTCP, 9090, ep{"10.244.3.1", "x", true})
	s2.Endpoints = append(s2.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.244.0.4"}})
	got := ServiceEndpoints(s, s.Spec.Ports[0], []*discoveryv1.EndpointSlice{s1, s2, other})
	want := []Endpoint{
		{IP: "10.244.0.4", Port: 8080, Ready: true, Serving: true},
		{IP: "10.244.1.5", Port: 8080, NodeName: "win-1", Serving: true},
		{IP: "10.244.2.7", Port: 8080, NodeName: "win-2", Ready: true, Serving: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ServiceEndpoints:\n%+v\nwant\n%+v", got, want)
	}
}

func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }
