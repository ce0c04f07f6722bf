package proxy

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/winkube/winkube/pkg/network/hns"
)

// rule: KP-3 — a NodePort Service with an externalIP and a load balancer
// ingress gets four load balancers: cluster IP, node port (no VIP,
// local-routed), external IP and ingress; internal port = target port.
func TestLoadBalancerPerKind(t *testing.T) {
	s := svc("web", "10.96.100.1", corev1.ServiceTypeLoadBalancer, port("http", corev1.ProtocolTCP, 80, 8080, 30080))
	s.Spec.ExternalIPs = []string{"192.168.1.200"}
	s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "172.18.255.1"}}
	p := program(overlayConfig(build2019), []*corev1.Service{s}, both("web", corev1.ProtocolTCP, 8080))
	lbs := p.LoadBalancers()
	want := []struct {
		kind     string
		vips     []string
		external int
	}{
		{hns.KindClusterIP, []string{"10.96.100.1"}, 80},
		{hns.KindNodePort, []string{}, 30080},
		{hns.KindExternalIP, []string{"192.168.1.200"}, 80},
		{hns.KindLoadBalancer, []string{"172.18.255.1"}, 80},
	}
	if len(lbs) != len(want) {
		t.Fatalf("%d load balancers, want %d: %+v", len(lbs), len(want), lbs)
	}
	for i, w := range want {
		lb := lbs[i]
		if lb.Kind != w.kind || !reflect.DeepEqual(lb.FrontendVIPs, w.vips) || lb.ExternalPort != w.external || lb.InternalPort != 8080 || lb.Protocol != hns.ProtocolTCP || len(lb.Endpoints) != 2 {
			t.Errorf("lb %d = %+v, want %s %v :%d → 8080 with 2 endpoints", i, lb, w.kind, w.vips, w.external)
		}
	}
	if np := lbs[1]; !np.LocalRoutedVIP || !np.VipExternalIP || np.DSR {
		t.Errorf("node port flags %+v, want LocalRoutedVIP, VipExternalIP, no DSR", np)
	}
}

// rule: KP-3 — protocol numbers TCP 6, UDP 17, SCTP 132.
func TestProtocolNumbers(t *testing.T) {
	for proto, want := range map[corev1.Protocol]int{corev1.ProtocolTCP: 6, corev1.ProtocolUDP: 17, corev1.ProtocolSCTP: 132} {
		s := svc("dns", "10.96.0.10", corev1.ServiceTypeClusterIP, port("http", proto, 53, 53, 0))
		lbs := program(overlayConfig(build2019), []*corev1.Service{s}, both("dns", proto, 53)).LoadBalancers()
		if len(lbs) != 1 || lbs[0].Protocol != want {
			t.Errorf("%s: %+v, want one load balancer with protocol %d", proto, lbs, want)
		}
	}
}

// rule: KP-3 — no load balancer for a port without ready endpoints.
func TestNoLoadBalancerWithoutReadyEndpoints(t *testing.T) {
	s := svc("web", "10.96.100.1", corev1.ServiceTypeNodePort, port("http", corev1.ProtocolTCP, 80, 80, 30080))
	if lbs := program(overlayConfig(build2019), []*corev1.Service{s}).LoadBalancers(); len(lbs) != 0 {
		t.Errorf("no endpoints: %d load balancers, want none", len(lbs))
	}
	notReady := slice("web", "web-1", "http", corev1.ProtocolTCP, 80, ep{localPod, "win-1", false})
	notReady.Endpoints[0].Conditions.Serving = ptrBool(false)
	if lbs := program(overlayConfig(build2019), []*corev1.Service{s}, notReady).LoadBalancers(); len(lbs) != 0 {
		t.Errorf("only a not-ready endpoint: %d load balancers, want none", len(lbs))
	}
}

// A LoadBalancer Service whose endpoints are all terminating but still
// serving keeps its cluster IP and ingress load balancers on them, and
// loses the node port one (winkernel's terminating-endpoint handling).
func TestAllEndpointsTerminating(t *testing.T) {
	s := svc("web", "10.96.100.1", corev1.ServiceTypeLoadBalancer, port("http", corev1.ProtocolTCP, 80, 80, 30080))
	s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "172.18.255.1"}}
	sl := both("web", corev1.ProtocolTCP, 80)
	for i := range sl.Endpoints {
		c := &sl.Endpoints[i].Conditions
		c.Ready, c.Serving, c.Terminating = ptrBool(false), ptrBool(true), ptrBool(true)
	}
	lbs := program(overlayConfig(build2019), []*corev1.Service{s}, sl).LoadBalancers()
	if lbOf(lbs, hns.KindClusterIP) == nil || lbOf(lbs, hns.KindLoadBalancer) == nil || lbOf(lbs, hns.KindNodePort) != nil {
		t.Errorf("load balancers %+v, want cluster IP and ingress only", lbs)
	}
}

// A named targetPort is resolved from the endpoint's port.
func TestNamedTargetPort(t *testing.T) {
	sp := port("http", corev1.ProtocolTCP, 80, 0, 0)
	sp.TargetPort = intstr.FromString("web")
	s := svc("web", "10.96.100.1", corev1.ServiceTypeClusterIP, sp)
	lbs := program(overlayConfig(build2019), []*corev1.Service{s}, both("web", corev1.ProtocolTCP, 8443)).LoadBalancers()
	if len(lbs) != 1 || lbs[0].InternalPort != 8443 {
		t.Errorf("%+v, want internal port 8443", lbs)
	}
}

// rule: KP-4 — the remote backend gets a remote endpoint with MAC 02-11 +
// its octets and, on overlay, a PA policy naming its node's address; the
// local pod's own endpoint is used as is.
func TestRemoteEndpoints(t *testing.T) {
	s := svc("web", "10.96.100.1", corev1.ServiceTypeClusterIP, port("http", corev1.ProtocolTCP, 80, 80, 0))
	p := program(overlayConfig(build2019), []*corev1.Service{s}, both("web", corev1.ProtocolTCP, 80))
	var remote *hns.Endpoint
	for _, e := range p.RemoteEndpoints() {
		if e.IPAddress == remotePod {
			remote = &e
		}
	}
	if remote == nil {
		t.Fatalf("no remote endpoint for %s: %+v", remotePod, p.RemoteEndpoints())
	}
	if remote.MacAddress != "02-11-0A-F4-02-07" || !remote.IsRemoteEndpoint || remote.Node != "win-2" ||
		len(remote.Policies) != 1 || remote.Policies[0].Type != hns.PolicyPA || remote.Policies[0].PA != "192.168.1.30" {
		t.Errorf("remote endpoint %+v", remote)
	}
	lb := p.LoadBalancers()[0]
	if !slices.Contains(lb.Endpoints, overlayConfig(build2019).LocalEndpoints[mustAddr(localPod)]) || !slices.Contains(lb.Endpoints, remote.ID) {
		t.Errorf("load balancer endpoints %v, want the local pod's and the remote one", lb.Endpoints)
	}
	if lb.SourceVIP != "10.244.1.2" {
		t.Errorf("overlay source VIP %q, want the node's 10.244.1.2", lb.SourceVIP)
	}
	l2 := program(l2bridgeConfig(build2019), []*corev1.Service{s}, both("web", corev1.ProtocolTCP, 80))
	for _, e := range l2.RemoteEndpoints() {
		if len(e.Policies) != 0 {
			t.Errorf("l2bridge remote endpoint with policies: %+v", e)
		}
	}
	if sv := l2.LoadBalancers()[0].SourceVIP; sv != "" {
		t.Errorf("l2bridge source VIP %q, want none", sv)
	}
}

// rule: KP-4 — a backend outside every pod subnet (a public address) is
// reached from the node's own address.
func TestPublicBackendUsesNodeIP(t *testing.T) {
	s := svc("ext", "10.96.100.2", corev1.ServiceTypeClusterIP, port("http", corev1.ProtocolTCP, 80, 80, 0))
	sl := slice("ext", "ext-1", "http", corev1.ProtocolTCP, 80, ep{"203.0.113.9", "", true})
	p := program(overlayConfig(build2019), []*corev1.Service{s}, sl)
	lbs := p.LoadBalancers()
	if len(lbs) != 1 || lbs[0].SourceVIP != "192.168.1.20" {
		t.Fatalf("%+v, want one load balancer sourced from the node IP", lbs)
	}
	for _, e := range p.RemoteEndpoints() {
		if e.IPAddress == "203.0.113.9" && e.Policies[0].PA != "192.168.1.20" {
			t.Errorf("public endpoint PA %s, want the node's address", e.Policies[0].PA)
		}
	}
}

// rule: KP-5, LIM-10 — sessionAffinity ClientIP becomes SourceIP
// distribution on Windows Server 2022, and nothing on 2019.
func TestSessionAffinityByBuild(t *testing.T) {
	s := svc("web", "10.96.100.1", corev1.ServiceTypeClusterIP, port("http", corev1.ProtocolTCP, 80, 80, 0))
	s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
	s.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptrInt32(60)}}
	for b, want := range map[string]string{"2019": hns.DistributionNone, "2022": hns.DistributionSourceIP} {
		build := build2019
		if b == "2022" {
			build = build2022
		}
		p := program(overlayConfig(build), []*corev1.Service{s}, both("web", corev1.ProtocolTCP, 80))
		if got := p.LoadBalancers()[0].Distribution; got != want {
			t.Errorf("%s: distribution %s, want %s", b, got, want)
		}
		if got := len(findingsOf(p, "KP-5")) == 1; got != (b == "2019") {
			t.Errorf("%s: KP-5 finding %v", b, p.Findings())
		}
		if len(findingsOf(p, "LIM-10")) != 1 {
			t.Errorf("%s: want a LIM-10 finding for the 60s timeout: %v", b, p.Findings())
		}
	}
}

// rule: KP-5 — preserve-destination needs 1903 or later: on 2022 the
// ingress load balancer preserves the destination and keeps to local
// endpoints; on 2019 the annotation is dropped.
func TestPreserveDestination(t *testing.T) {
	s := svc("web", "10.96.100.1", corev1.ServiceTypeLoadBalancer, port("http", corev1.ProtocolTCP, 80, 80, 30080))
	s.Annotations = map[string]string{"preserve-destination": "true"}
	s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "172.18.255.1"}}
	in := lbOf(program(overlayConfig(build2022), []*corev1.Service{s}, both("web", corev1.ProtocolTCP, 80)).LoadBalancers(), hns.KindLoadBalancer)
	if in == nil || !in.PreserveDIP || !in.DSR || !in.UseMux || len(in.Endpoints) != 1 {
		t.Errorf("2022 ingress %+v, want PreserveDIP, DSR, UseMux and the local endpoint only", in)
	}
	p := program(overlayConfig(build2019), []*corev1.Service{s}, both("web", corev1.ProtocolTCP, 80))
	in = lbOf(p.LoadBalancers(), hns.KindLoadBalancer)
	if in == nil || in.PreserveDIP || len(in.Endpoints) != 2 || len(findingsOf(p, "KP-5")) != 1 {
		t.Errorf("2019 ingress %+v (findings %v), want no PreserveDIP, both endpoints, a KP-5 finding", in, p.Findings())
	}
}

// rule: KP-6 — internalTrafficPolicy Local: the cluster IP load balancer
// has the node's endpoints only, and none at all without a local one.
func TestInternalTrafficPolicyLocal(t *testing.T) {
	s := svc("web", "10.96.100.1", corev1.ServiceTypeNodePort, port("http", corev1.ProtocolTCP, 80, 80, 30080))
	s.Spec.InternalTrafficPolicy = ptrITP(corev1.ServiceInternalTrafficPolicyLocal)
	lbs := program(overlayConfig(build2019), []*corev1.Service{s}, both("web", corev1.ProtocolTCP, 80)).LoadBalancers()
	if c := lbOf(lbs, hns.KindClusterIP); c == nil || len(c.Endpoints) != 1 {
		t.Errorf("cluster IP load balancer %+v, want the local endpoint only", c)
	}
	remoteOnly := slice("web", "web-1", "http", corev1.ProtocolTCP, 80, ep{remotePod, "win-2", true})
	lbs = program(overlayConfig(build2019), []*corev1.Service{s}, remoteOnly).LoadBalancers()
	if lbOf(lbs, hns.KindClusterIP) != nil || lbOf(lbs, hns.KindNodePort) == nil {
		t.Errorf("no local endpoint: %+v, want a NodePort load balancer and no cluster IP one", lbs)
	}
}

// rule: LIM-12 — externalTrafficPolicy Local is done with DSR: with
// --enable-dsr the node port keeps to local endpoints with DSR; on a build
// without DSR kube-proxy ignores the policy.
func TestExternalTrafficPolicyLocal(t *testing.T) {
	s := svc("web", "10.96.100.1", corev1.ServiceTypeNodePort, port("http", corev1.ProtocolTCP, 80, 80, 30080))
	s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	cfg := overlayConfig(build2019)
	cfg.EnableDSR = true
	p := program(cfg, []*corev1.Service{s}, both("web", corev1.ProtocolTCP, 80))
	np, cip := lbOf(p.LoadBalancers(), hns.KindNodePort), lbOf(p.LoadBalancers(), hns.KindClusterIP)
	if np == nil || !np.DSR || len(np.Endpoints) != 1 || len(findingsOf(p, "LIM-12")) != 0 {
		t.Errorf("with DSR: node port %+v findings %v, want DSR, the local endpoint, no LIM-12", np, p.Findings())
	}
	if cip == nil || !cip.DSR || len(cip.Endpoints) != 2 {
		t.Errorf("with --enable-dsr: cluster IP %+v, want DSR and both endpoints", cip)
	}
	old := program(overlayConfig(build2016), []*corev1.Service{s}, both("web", corev1.ProtocolTCP, 80))
	np = lbOf(old.LoadBalancers(), hns.KindNodePort)
	if np == nil || np.DSR || len(np.Endpoints) != 2 || len(findingsOf(old, "LIM-12")) != 1 {
		t.Errorf("2016: node port %+v findings %v, want every endpoint, no DSR, a LIM-12 finding", np, old.Findings())
	}
	noFlag := program(overlayConfig(build2019), []*corev1.Service{s}, both("web", corev1.ProtocolTCP, 80))
	if len(findingsOf(noFlag, "LIM-12")) != 1 {
		t.Errorf("without --enable-dsr: findings %v, want LIM-12", noFlag.Findings())
	}
}

// rule: LIM-11 — beyond the backend limit HNS refuses the load balancer:
// 64 on Kubernetes 1.34 docs, 1024 from 1.35.
func TestBackendLimit(t *testing.T) {
	s := svc("big", "10.96.100.3", corev1.ServiceTypeClusterIP, port("http", corev1.ProtocolTCP, 80, 80, 0))
	var eps []ep
	for i := 0; i < 65; i++ {
		eps = append(eps, ep{fmt.Sprintf("10.244.2.%d", i+10), "win-2", true})
	}
	sl := slice("big", "big-1", "http", corev1.ProtocolTCP, 80, eps...)
	for minor, wantLB := range map[int]bool{34: false, 36: true} {
		cfg := overlayConfig(build2019)
		cfg.K8sMinor = minor
		p := program(cfg, []*corev1.Service{s}, sl)
		if got := len(p.LoadBalancers()) == 1; got != wantLB {
			t.Errorf("1.%d with 65 backends: load balancer %v, want %v", minor, got, wantLB)
		}
		if got := len(findingsOf(p, "LIM-11")) == 1; got == wantLB {
			t.Errorf("1.%d: LIM-11 finding %v, want %v", minor, got, !wantLB)
		}
	}
}

// rule: KP-7 — NodePorts on Windows Server 2022 overlay nodes break unless
// externalTrafficPolicy is Local.
func TestOverlayNodePort2022(t *testing.T) {
	s := svc("web", "10.96.100.1", corev1.ServiceTypeNodePort, port("http", corev1.ProtocolTCP, 80, 80, 30080))
	for _, tc := range []struct {
		cfg  Config
		etp  corev1.ServiceExternalTrafficPolicy
		want bool
	}{
		{overlayConfig(build2022), corev1.ServiceExternalTrafficPolicyCluster, true},
		{overlayConfig(build2022), corev1.ServiceExternalTrafficPolicyLocal, false},
		{overlayConfig(build2019), corev1.ServiceExternalTrafficPolicyCluster, false},
		{l2bridgeConfig(build2022), corev1.ServiceExternalTrafficPolicyCluster, false},
	} {
		s.Spec.ExternalTrafficPolicy = tc.etp
		p := program(tc.cfg, []*corev1.Service{s}, both("web", corev1.ProtocolTCP, 80))
		if got := len(findingsOf(p, "KP-7")) == 1; got != tc.want {
			t.Errorf("build %d overlay %v %s: KP-7 %v, want %v", tc.cfg.Build.Build, tc.cfg.Overlay, tc.etp, got, tc.want)
		}
	}
}

// Headless and ExternalName Services are not load-balanced.
func TestSkippedServices(t *testing.T) {
	headless := svc("h", "None", corev1.ServiceTypeClusterIP, port("http", corev1.ProtocolTCP, 80, 80, 0))
	ext := svc("e", "", corev1.ServiceTypeExternalName, port("http", corev1.ProtocolTCP, 80, 80, 0))
	p := program(overlayConfig(build2019), []*corev1.Service{headless, ext}, both("h", corev1.ProtocolTCP, 80), both("e", corev1.ProtocolTCP, 80))
	if n := len(p.LoadBalancers()); n != 0 {
		t.Errorf("%d load balancers, want none", n)
	}
}

func ptrInt32(v int32) *int32 { return &v }

func ptrBool(v bool) *bool { return &v }

func ptrITP(v corev1.ServiceInternalTrafficPolicy) *corev1.ServiceInternalTrafficPolicy { return &v }

// rule: LIM-13 — IPv6-only Services get nothing; a dual-stack Service on
// overlay keeps its IPv4 load balancer and a finding.
func TestIPv6Services(t *testing.T) {
	v6 := svc("v6", "fd00::10", corev1.ServiceTypeClusterIP, port("http", corev1.ProtocolTCP, 80, 80, 0))
	dual := svc("dual", "10.96.100.9", corev1.ServiceTypeClusterIP, port("http", corev1.ProtocolTCP, 80, 80, 0))
	dual.Spec.ClusterIPs = []string{"10.96.100.9", "fd00::9"}
	p := program(overlayConfig(build2022), []*corev1.Service{v6, dual}, both("v6", corev1.ProtocolTCP, 80), both("dual", corev1.ProtocolTCP, 80))
	lbs := p.LoadBalancers()
	if len(lbs) != 1 || lbs[0].Service != "default/dual" || lbs[0].FrontendVIPs[0] != "10.96.100.9" {
		t.Errorf("load balancers %+v, want dual's IPv4 one only", lbs)
	}
	if n := len(findingsOf(p, "LIM-13")); n != 2 {
		t.Errorf("findings %v, want two LIM-13", p.Findings())
	}
}
