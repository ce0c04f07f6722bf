package loadbalancer

import (
	"context"
	"net/netip"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// A LoadBalancer Service gets the pool's first usable address as a VIP
// with the upstream service controller's events; Services of other types
// and those with a loadBalancerClass are left alone.
func TestIngressAppears(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	startController(t, "10.127.131.0/24")

	classed := lbService("classed", "")
	class := "example.com/other-lb"
	classed.Spec.LoadBalancerClass = &class
	createService(t, ns, classed)
	createService(t, ns, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "plain"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(80)}}},
	})
	createService(t, ns, lbService("web", ""))

	if got := waitIngress(t, ns, "web"); got.String() != "10.127.131.1" {
		t.Errorf("ingress IP = %s, want 10.127.131.1 (the network address .0 is never handed out)", got)
	}
	ing := getService(t, ns, "web").Status.LoadBalancer.Ingress[0]
	if ing.IPMode == nil || *ing.IPMode != corev1.LoadBalancerIPModeVIP {
		t.Errorf("ipMode = %v, want VIP", ing.IPMode)
	}
	waitEvent(t, ns, "web", corev1.EventTypeNormal, "EnsuringLoadBalancer", "Ensuring load balancer")
	waitEvent(t, ns, "web", corev1.EventTypeNormal, "EnsuredLoadBalancer", "Ensured load balancer")

	// One worker handles keys in order, so the earlier Services were synced.
	for _, name := range []string{"classed", "plain"} {
		if got := getService(t, ns, name).Status.LoadBalancer.Ingress; len(got) != 0 {
			t.Errorf("Service %s got ingress %v", name, got)
		}
		if ev := serviceEvents(t, ns, name); len(ev) != 0 {
			t.Errorf("Service %s got events %v", name, ev)
		}
	}
}

// spec.loadBalancerIP is honoured when it is in the pool and free, and
// leaves the Service pending with a Warning otherwise.
func TestLoadBalancerIPHonoured(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	startController(t, "10.127.131.0/28")

	createService(t, ns, lbService("asks", "10.127.131.9"))
	if got := waitIngress(t, ns, "asks"); got.String() != "10.127.131.9" {
		t.Errorf("ingress IP = %s, want the requested 10.127.131.9", got)
	}
	cases := []struct{ name, ip, message string }{
		{"taken", "10.127.131.9", "spec.loadBalancerIP 10.127.131.9 is already in use by Service " + ns + "/asks"},
		{"outside", "192.168.1.9", "spec.loadBalancerIP 192.168.1.9 is not a usable address of the pool 10.127.131.0/28 (network.loadBalancerCIDR)"},
		{"broadcast", "10.127.131.15", "spec.loadBalancerIP 10.127.131.15 is not a usable address of the pool"},
	}
	for _, tc := range cases {
		createService(t, ns, lbService(tc.name, tc.ip))
		waitEvent(t, ns, tc.name, corev1.EventTypeWarning, "SyncLoadBalancerFailed", "Error syncing load balancer: failed to ensure load balancer: "+tc.message)
		if got := getService(t, ns, tc.name).Status.LoadBalancer.Ingress; len(got) != 0 {
			t.Errorf("Service %s asking for %s got ingress %v, want pending", tc.name, tc.ip, got)
		}
	}
}

// An exhausted pool leaves the next Service pending with a Warning; deleting
// a Service frees its address and the pending Service gets it.
func TestPoolExhaustionAndRelease(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	startController(t, "10.127.131.0/30") // two usable addresses: .1 and .2

	createService(t, ns, lbService("one", ""))
	first := waitIngress(t, ns, "one")
	createService(t, ns, lbService("two", ""))
	second := waitIngress(t, ns, "two")
	if first == second {
		t.Fatalf("two Services share %s", first)
	}
	createService(t, ns, lbService("three", ""))
	waitEvent(t, ns, "three", corev1.EventTypeWarning, "SyncLoadBalancerFailed",
		"no free address in the pool 10.127.131.0/30: all 2 addresses are in use")
	if got := getService(t, ns, "three").Status.LoadBalancer.Ingress; len(got) != 0 {
		t.Fatalf("Service three got %v from an exhausted pool", got)
	}

	if err := client.CoreV1().Services(ns).Delete(context.Background(), "one", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := waitIngress(t, ns, "three"); got != first {
		t.Errorf("Service three got %s, want the freed %s", got, first)
	}
}

// A Service that stops being a LoadBalancer gives its address back.
func TestTypeChangeReleases(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	startController(t, "10.127.131.4/30") // two usable addresses: .5 and .6

	// Both addresses taken: the next Service can only get a released one.
	createService(t, ns, lbService("web", ""))
	addr := waitIngress(t, ns, "web")
	createService(t, ns, lbService("other", ""))
	waitIngress(t, ns, "other")
	svc := getService(t, ns, "web")
	svc.Spec.Type = corev1.ServiceTypeClusterIP
	svc.Spec.LoadBalancerIP = ""
	if _, err := client.CoreV1().Services(ns).Update(context.Background(), svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, ns, "web", corev1.EventTypeNormal, "DeletedLoadBalancer", "Deleted load balancer")
	if got := getService(t, ns, "web").Status.LoadBalancer.Ingress; len(got) != 0 {
		t.Errorf("ClusterIP Service keeps ingress %v", got)
	}
	createService(t, ns, lbService("next", ""))
	if got := waitIngress(t, ns, "next"); got != addr {
		t.Errorf("next Service got %s, want the released %s", got, addr)
	}
}

// A restarted controller keeps every assignment (it never rewrites them)
// and never hands an address in use to a new Service.
func TestRestartKeepsAssignments(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	before := map[string]netip.Addr{}
	versions := map[string]string{}
	first := startController(t, "10.127.131.0/29")
	for _, name := range []string{"a", "b", "c"} {
		createService(t, ns, lbService(name, ""))
		before[name] = waitIngress(t, ns, name)
	}
	// Free the lowest address so a naive restart would hand it out again.
	if err := client.CoreV1().Services(ns).Delete(context.Background(), "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	first.Close()
	for _, name := range []string{"b", "c"} {
		versions[name] = getService(t, ns, name).ResourceVersion
	}
	// Created while no controller runs.
	createService(t, ns, lbService("d", ""))

	startController(t, "10.127.131.0/29")
	d := waitIngress(t, ns, "d")
	if d == before["b"] || d == before["c"] {
		t.Errorf("new Service got %s, already in use (b=%s, c=%s)", d, before["b"], before["c"])
	}
	if d != before["a"] {
		t.Errorf("new Service got %s, want the lowest free address %s", d, before["a"])
	}
	// The restarted controller queued b and c before e existed, so once e
	// has its address they were synced too.
	createService(t, ns, lbService("e", ""))
	waitIngress(t, ns, "e")
	for _, name := range []string{"b", "c"} {
		svc := getService(t, ns, name)
		if got := svc.Status.LoadBalancer.Ingress[0].IP; got != before[name].String() || svc.ResourceVersion != versions[name] {
			t.Errorf("Service %s: ingress %s (resourceVersion %s), want %s unchanged (%s)", name, got, svc.ResourceVersion, before[name], versions[name])
		}
	}
}
