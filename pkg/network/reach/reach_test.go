package reach

import (
	"errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// rule: NET-9
// The flows seed 001 lists as supported for TCP/UDP, from a Windows pod
// and from a Linux pod.
func TestSupportedFlows(t *testing.T) {
	c := newFixture().build()
	for _, src := range []string{"pod/default/win-client", "pod/default/linux-client"} {
		for _, tc := range []struct{ target string }{
			{"10.244.1.3"},                           // pod → pod (IP)
			{"10-244-1-3.default.pod.cluster.local"}, // pod → pod (name)
			{"svc/default/web"},                      // pod → service (ClusterIP)
			{"web"},                                  // pod → service (PQDN)
			{"web.default.svc.cluster.local"},        // pod → service (FQDN)
			{"8.8.8.8"},                              // pod → external (IP)
			{"example.com"},                          // pod → external (DNS)
			{"node/linux-1"},                         // pod → node
		} {
			res := check(t, c, src, tc.target, 80, TCP)
			expect(t, res, true, "NET-9")
		}
	}
}

// rule: KP-3
// A ClusterIP from a Windows pod goes through the HNS load balancer
// kube-proxy programmed on the pod's own node, then over VXLAN.
func TestClusterIPFromWindowsPod(t *testing.T) {
	c := newFixture().build()
	res := check(t, c, "pod/default/win-client", "svc/default/web", 0, TCP)
	expect(t, res, true, "KP-3", "NET-9")
	if res.Port != 80 || res.ResolvedIP != "10.96.10.10" {
		t.Errorf("port %d, resolved %q; want the Service's first port 80 and its ClusterIP", res.Port, res.ResolvedIP)
	}
	if res.Backend == "" {
		t.Error("no backend named")
	}
}

// rule: DNS-1
// rule: TS-12
// Windows pods have one DNS suffix, and a name with a dot is a FQDN: from
// default, kubernetes resolves and kubernetes.default does not; Linux
// pods resolve both.
func TestWindowsDNSSuffix(t *testing.T) {
	c := newFixture().build()
	expect(t, check(t, c, "pod/default/win-client", "kubernetes", 443, TCP), true)
	expect(t, check(t, c, "pod/default/win-client", "kubernetes.default.svc.cluster.local", 443, TCP), true)
	expect(t, check(t, c, "pod/default/win-client", "kubernetes.default", 443, TCP), false, "DNS-1", "TS-12")
	expect(t, check(t, c, "pod/default/win-client", "kubernetes.default.svc", 443, TCP), false, "DNS-1")
	expect(t, check(t, c, "pod/default/win-client", "web.default", 80, TCP), false, "DNS-1")
	expect(t, check(t, c, "pod/default/linux-client", "kubernetes.default", 443, TCP), true)
	expect(t, check(t, c, "pod/default/linux-client", "web.default", 80, TCP), true)
}

// rule: LIM-17
// rule: TS-3
// ICMP that needs OutBoundNAT never returns to a Windows pod; inside the
// pod network it works, and Linux pods ping anywhere.
func TestICMP(t *testing.T) {
	c := newFixture().build()
	expect(t, check(t, c, "pod/default/win-client", "8.8.8.8", 0, ICMP), false, "LIM-17", "TS-3")
	expect(t, check(t, c, "pod/default/win-client", "example.com", 0, ICMP), false, "LIM-17")
	expect(t, check(t, c, "pod/default/win-client", "pod/default/web-a", 0, ICMP), true)
	expect(t, check(t, c, "pod/default/linux-client", "8.8.8.8", 0, ICMP), true)
	expect(t, check(t, c, "pod/default/win-client", "svc/default/web", 0, ICMP), false, "LIM-17")
}

// rule: NET-6
// TCP from a Windows pod to the outside is NATed to the node's IP;
// cluster addresses are in the ExceptionList and keep the pod IP.
func TestOutBoundNAT(t *testing.T) {
	c := newFixture().build()
	res := check(t, c, "pod/default/win-client", "8.8.8.8", 443, TCP)
	expect(t, res, true, "NET-6")
	if !hasHop(res, "OutBoundNAT") {
		t.Errorf("no OutBoundNAT hop: %+v", res.Hops)
	}
}

// rule: LIM-16
// rule: TS-4
// rule: TS-9
// A Windows node cannot reach its own NodePort or Service VIPs; another
// node, a pod and an external client can.
func TestWindowsNodeOwnNodePort(t *testing.T) {
	c := newFixture().build()
	expect(t, check(t, c, "node/win2019-1", "node/win2019-1", 30080, TCP), false, "LIM-16", "TS-4")
	expect(t, check(t, c, "node/win2019-1", "svc/default/web", 80, TCP), false, "LIM-16", "TS-9")
	expect(t, check(t, c, "node/linux-1", "node/win2019-1", 30080, TCP), true, "KP-3")
	expect(t, check(t, c, "external", "node/win2019-1", 30080, TCP), true, "KP-3")
	expect(t, check(t, c, "node/linux-1", "node/linux-1", 30080, TCP), true)
}

// rule: NET-11
// On flannel VXLAN a Windows node reaches only its own pods.
func TestWindowsNodeToPod(t *testing.T) {
	c := newFixture().build()
	expect(t, check(t, c, "node/win2019-1", "pod/default/web-a", 80, TCP), true)
	expect(t, check(t, c, "node/win2019-1", "pod/default/web-b", 80, TCP), false, "NET-11")
	expect(t, check(t, c, "node/linux-1", "pod/default/web-b", 80, TCP), true)
}

// rule: KP-7
// NodePort traffic to a backend on a Windows Server 2022 overlay node (the
// destination node) breaks, whichever node it enters, unless the Service
// keeps it local; entering a 2022 node for backends on 2019 works.
func TestNodePortOn2022Overlay(t *testing.T) {
	f := newFixture()
	f.pod("default", "api-a", "win2022-1", "10.244.3.4", map[string]string{"app": "api"})
	api := f.service("default", "api", "10.96.10.11", corev1.ServiceTypeNodePort, 80, 80, 30081, "app", "api")
	c := f.build()
	expect(t, check(t, c, "external", "node/win2022-1", 30080, TCP), true, "KP-3")
	for _, entry := range []string{"node/linux-1", "node/win2019-1", "node/win2022-1"} {
		expect(t, check(t, c, "external", entry, 30081, TCP), false, "KP-7")
	}
	api.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	c = f.build()
	expect(t, check(t, c, "external", "node/win2022-1", 30081, TCP), true, "LIM-12")
}

// rule: LIM-12
// externalTrafficPolicy Local without DSR is unsupported per the docs, but
// kube-proxy (winkernel, 1.36) keeps the traffic on local endpoints with
// DSR on builds that have it: a node with a local backend answers, one
// without drops the traffic.
func TestLocalTrafficPolicyWithoutDSR(t *testing.T) {
	f := newFixture()
	f.s.Services[0].Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	c := f.build()
	res := check(t, c, "external", "node/win2019-1", 30080, TCP)
	expect(t, res, true, "LIM-12")
	if res.Backend != "pod/default/web-a 10.244.1.3:80" {
		t.Errorf("backend %q, want the local pod web-a", res.Backend)
	}
	expect(t, check(t, c, "external", "node/win2022-1", 30080, TCP), false)
	expect(t, check(t, c, "external", "node/linux-1", 30080, TCP), false)
}

// rule: NET-2
// Windows flannel refuses a VNI below 4096 or a port other than 4789, so
// its pods lose the overlay; Linux to Linux is unaffected.
func TestVXLANSettingsWindowsRejects(t *testing.T) {
	f := newFixture()
	f.setFlannel(`{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan", "VNI": 1, "Port": 8472}}`)
	c := f.build()
	expect(t, check(t, c, "pod/default/win-client", "pod/default/web-a", 80, TCP), false, "NET-2")
	expect(t, check(t, c, "pod/default/linux-client", "pod/kube-system/coredns-1", 53, TCP), true)
}

// rule: KP-1
// rule: TS-1
// Without --network-name or KUBE_NETWORK kube-proxy exits at start, so
// the Windows node has no Service load balancers.
func TestKubeProxyWithoutNetworkName(t *testing.T) {
	f := newFixture()
	f.kubeProxy("--proxy-mode=kernelspace", "--hostname-override=$(NODE_NAME)", "--source-vip=$(SOURCE_VIP)")
	c := f.build()
	expect(t, check(t, c, "pod/default/win-client", "svc/default/web", 80, TCP), false, "KP-1")
	expect(t, check(t, c, "pod/default/linux-client", "svc/default/web", 80, TCP), true)
}

// rule: KP-8
// rule: TS-5
// A --hostname-override other than the node name makes kube-proxy delete
// the node's own endpoints.
func TestHostnameOverrideMismatch(t *testing.T) {
	f := newFixture()
	f.kubeProxy("--proxy-mode=kernelspace", "--hostname-override=somehost", "--network-name=vxlan0", "--source-vip=$(SOURCE_VIP)")
	c := f.build()
	expect(t, check(t, c, "pod/default/win-client", "8.8.8.8", 443, TCP), false, "KP-8", "TS-5")
}

// rule: KP-3
// No load balancer is programmed for a port without endpoints.
func TestServiceWithoutEndpoints(t *testing.T) {
	f := newFixture()
	f.service("default", "empty", "10.96.20.20", corev1.ServiceTypeClusterIP, 80, 80, 0, "app", "nothing")
	c := f.build()
	expect(t, check(t, c, "pod/default/win-client", "svc/default/empty", 80, TCP), false, "KP-3")
	expect(t, check(t, c, "pod/default/linux-client", "svc/default/empty", 80, TCP), false, "KP-3")
}

// rule: KP-6
// internalTrafficPolicy Local keeps a ClusterIP on the client's node.
func TestInternalTrafficPolicyLocal(t *testing.T) {
	f := newFixture()
	f.s.Services[0].Spec.InternalTrafficPolicy = ptr.To(corev1.ServiceInternalTrafficPolicyLocal)
	c := f.build()
	expect(t, check(t, c, "pod/default/win-client", "svc/default/web", 80, TCP), false, "KP-6")
	f.pod("default", "win-client-2", "win2019-1", "10.244.1.4", nil)
	c = f.build()
	expect(t, check(t, c, "pod/default/win-client-2", "svc/default/web", 80, TCP), true)
}

// rule: KP-3
// A LoadBalancer ingress IP takes external traffic to a node's load
// balancer; ClusterIPs and pod IPs are not reachable from outside.
func TestFromOutside(t *testing.T) {
	f := newFixture()
	svc := f.service("default", "web-lb", "10.96.30.30", corev1.ServiceTypeLoadBalancer, 80, 80, 31080, "app", "web")
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "10.127.131.1"}}
	c := f.build()
	expect(t, check(t, c, "external", "10.127.131.1", 80, TCP), true, "KP-3")
	// From outside, a LoadBalancer Service by name is its ingress IP; a
	// ClusterIP-only Service has no way in.
	expect(t, check(t, c, "external", "svc/default/web-lb", 80, TCP), true, "KP-3")
	expect(t, check(t, c, "external", "svc/default/web", 80, TCP), false)
	expect(t, check(t, c, "external", "pod/default/web-a", 80, TCP), false)
}

// Bad input is an InputError naming what is wrong.
func TestInputErrors(t *testing.T) {
	c := newFixture().build()
	for _, r := range []Request{
		{Source: "pod/default/nope", Target: "svc/default/web"},
		{Source: "pod/default/win-client", Target: "svc/default/nope"},
		{Source: "node/nope", Target: "8.8.8.8"},
		{Source: "deployment/x", Target: "8.8.8.8"},
		{Source: "external", Target: "bad name!"},
		{Source: "external", Target: "8.8.8.8", Protocol: "sctp"},
		{Source: "external", Target: "8.8.8.8", Port: 70000},
	} {
		_, err := c.Check(r)
		var in *InputError
		if !errors.As(err, &in) {
			t.Errorf("%+v: err = %v, want an InputError", r, err)
		}
	}
}

// rule: NET-9
// The matrix runs every flow from both pods.
func TestMatrix(t *testing.T) {
	c := newFixture().build()
	m, err := c.Matrix("default")
	if err != nil {
		t.Fatal(err)
	}
	if m.WindowsPod == "" || m.LinuxPod == "" || m.Service != "svc/default/web" {
		t.Fatalf("matrix picked %q, %q, %q", m.WindowsPod, m.LinuxPod, m.Service)
	}
	byName := map[string]Flow{}
	for _, f := range m.Flows {
		byName[f.Name] = f
	}
	if f := byName["pod → service (PQDN with a dot)"]; f.Windows == nil || f.Windows.Reachable || !f.Linux.Reachable {
		t.Errorf("PQDN with a dot: %+v", f)
	}
	if f := byName["pod → external (ICMP)"]; f.Windows == nil || f.Windows.Reachable || !f.Linux.Reachable {
		t.Errorf("ICMP out: %+v", f)
	}
	if f := byName["pod → service (ClusterIP)"]; !f.Windows.Reachable || !f.Linux.Reachable {
		t.Errorf("ClusterIP: %+v", f)
	}
	if _, err := c.Matrix("empty"); err == nil {
		t.Error("a namespace without pods gave no error")
	}
}

func hasHop(res *Result, word string) bool {
	for _, h := range res.Hops {
		if strings.Contains(h.What, word) {
			return true
		}
	}
	return false
}

func contains(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub))
}

// A terminating pod keeps its network until its containers stop: its
// preStop hook still reaches other pods, and it is still reached at its IP.
func TestTerminatingPodKeepsItsNetwork(t *testing.T) {
	f := newFixture()
	now := metav1.Now()
	for _, p := range f.s.Pods {
		if p.Name == "win-client" || p.Name == "web-a" {
			p.DeletionTimestamp = &now
		}
	}
	c := f.build()
	if res := check(t, c, "pod/default/win-client", "pod/default/web-a", 80, "tcp"); !res.Reachable {
		t.Errorf("terminating pod to terminating pod: %s", res.Reason)
	}
}

// A dnsPolicy None pod whose nameservers include the cluster DNS resolves
// with its own search list; without the cluster DNS it resolves nothing of
// the cluster's. rule: DNS-1
func TestDNSPolicyNone(t *testing.T) {
	for _, tc := range []struct {
		nameservers []string
		target      string
		want        bool
	}{
		{[]string{"10.96.0.10", "1.1.1.1"}, "kubernetes", true},
		{[]string{"10.96.0.10"}, "kubernetes.default", false}, // a dot: fully qualified on Windows
		{[]string{"1.1.1.1"}, "kubernetes", false},
	} {
		f := newFixture()
		for _, p := range f.s.Pods {
			if p.Name == "win-client" {
				p.Spec.DNSPolicy = corev1.DNSNone
				p.Spec.DNSConfig = &corev1.PodDNSConfig{Nameservers: tc.nameservers, Searches: []string{"default.svc.cluster.local"}}
			}
		}
		res := check(t, f.build(), "pod/default/win-client", tc.target, 443, "tcp")
		if res.Reachable != tc.want || tc.want && res.ResolvedIP != "10.96.0.1" {
			t.Errorf("%v %s: reachable=%t resolved %q (%s), want %t", tc.nameservers, tc.target, res.Reachable, res.ResolvedIP, res.Reason, tc.want)
		}
	}
}
