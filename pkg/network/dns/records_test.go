package dns

import (
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"testing"

	miekg "github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The seeds' addresses: services from 10.96.0.0/12 (the API server's
// Service takes the first, kube-dns has 10.96.0.10), pods from
// 10.244.0.0/16.
const (
	kubernetesIP = "10.96.0.1"
	kubeDNSIP    = "10.96.0.10"
)

func clusterIPService(ns, name, ip string, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.ServiceSpec{ClusterIP: ip, ClusterIPs: []string{ip}, Ports: ports},
	}
}

func headlessService(ns, name string, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, ClusterIPs: []string{corev1.ClusterIPNone}, Ports: ports},
	}
}

func externalService(ns, name, target string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: target},
	}
}

func svcPort(name string, proto corev1.Protocol, port int32) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Protocol: proto, Port: port}
}

// ep is one endpoint: ready or not, with a hostname or none.
type ep struct {
	ip       string
	hostname string
	ready    bool
}

func endpointSlice(ns, name, service string, ports []discoveryv1.EndpointPort, eps ...ep) *discoveryv1.EndpointSlice {
	es := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: service}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       ports,
	}
	for _, e := range eps {
		end := discoveryv1.Endpoint{Addresses: []string{e.ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(e.ready)}}
		if e.hostname != "" {
			end.Hostname = ptr.To(e.hostname)
		}
		es.Endpoints = append(es.Endpoints, end)
	}
	return es
}

func slicePort(name string, port int32) discoveryv1.EndpointPort {
	return discoveryv1.EndpointPort{Name: ptr.To(name), Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(port)}
}

func runningPod(ns, name, ip string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Status:     corev1.PodStatus{PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}},
	}
}

// seedRecords: the API server's Service in default and kube-dns in
// kube-system, as every cluster has them.
func seedRecords(t testing.TB) *Records {
	t.Helper()
	r := NewRecords("cluster.local")
	r.SetNamespace(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
	r.SetService(clusterIPService("default", "kubernetes", kubernetesIP, svcPort("https", corev1.ProtocolTCP, 443)))
	r.SetService(clusterIPService("kube-system", "kube-dns", kubeDNSIP,
		svcPort("dns", corev1.ProtocolUDP, 53), svcPort("dns-tcp", corev1.ProtocolTCP, 53), svcPort("metrics", corev1.ProtocolTCP, 9153)))
	return r
}

func addrs(a Answer) []string {
	var out []string
	for _, ip := range a.Addrs() {
		out = append(out, ip.String())
	}
	slices.Sort(out)
	return out
}

func wantAddrs(t *testing.T, r *Records, name string, qtype uint16, want ...string) Answer {
	t.Helper()
	a := r.Lookup(name, qtype)
	if a.Rcode != miekg.RcodeSuccess {
		t.Fatalf("%s %s: rcode %s, want NOERROR", name, miekg.TypeToString[qtype], miekg.RcodeToString[a.Rcode])
	}
	if got := addrs(a); !slices.Equal(got, want) {
		t.Fatalf("%s %s: addresses %q, want %q", name, miekg.TypeToString[qtype], got, want)
	}
	return a
}

func wantNXDomain(t *testing.T, r *Records, name string, qtype uint16) Answer {
	t.Helper()
	a := r.Lookup(name, qtype)
	if a.Rcode != miekg.RcodeNameError {
		t.Fatalf("%s %s: rcode %s with %v, want NXDOMAIN", name, miekg.TypeToString[qtype], miekg.RcodeToString[a.Rcode], a.RRs())
	}
	return a
}

func wantNoData(t *testing.T, r *Records, name string, qtype uint16) {
	t.Helper()
	a := r.Lookup(name, qtype)
	if !a.NoData() {
		t.Fatalf("%s %s: rcode %s with %v, want NODATA", name, miekg.TypeToString[qtype], miekg.RcodeToString[a.Rcode], a.RRs())
	}
	if len(a.Ns) != 1 || a.Ns[0].Header().Rrtype != miekg.TypeSOA {
		t.Fatalf("%s: NODATA without the zone's SOA in the authority section: %v", name, a.Ns)
	}
}

// resolve runs a pod's resolver: the first candidate with addresses wins.
func resolve(r *Records, name, namespace, os string) (netip.Addr, bool) {
	for _, fqdn := range r.Candidates(name, namespace, os) {
		if ips, _, found := r.LookupA(fqdn); found && len(ips) > 0 {
			return ips[0], true
		}
	}
	return netip.Addr{}, false
}

func TestDNS1SeedExampleFromDefault(t *testing.T) {
	// rule: DNS-1
	// The seed: a Windows pod in default resolves kubernetes and
	// kubernetes.default.svc.cluster.local, but not kubernetes.default or
	// kubernetes.default.svc; a Linux pod resolves all four.
	r := seedRecords(t)
	cases := []struct {
		name    string
		windows bool
	}{
		{"kubernetes", true},
		{"kubernetes.default.svc.cluster.local", true},
		{"kubernetes.default", false},
		{"kubernetes.default.svc", false},
	}
	for _, c := range cases {
		ip, ok := resolve(r, c.name, "default", "windows")
		if ok != c.windows {
			t.Errorf("windows pod in default, %q: resolved=%v, want %v", c.name, ok, c.windows)
		}
		if ok && ip.String() != kubernetesIP {
			t.Errorf("windows pod in default, %q: %s, want %s", c.name, ip, kubernetesIP)
		}
		ip, ok = resolve(r, c.name, "default", "linux")
		if !ok || ip.String() != kubernetesIP {
			t.Errorf("linux pod in default, %q: %s (resolved=%v), want %s", c.name, ip, ok, kubernetesIP)
		}
	}
}

func TestClusterIPServiceA(t *testing.T) {
	r := seedRecords(t)
	a := wantAddrs(t, r, "kubernetes.default.svc.cluster.local", miekg.TypeA, kubernetesIP)
	if !a.Authoritative || a.A[0].Hdr.Ttl != TTL || a.A[0].Hdr.Name != "kubernetes.default.svc.cluster.local." {
		t.Errorf("record %v: want authoritative, TTL %d, owner with trailing dot", a.A[0], TTL)
	}
	wantAddrs(t, r, "kube-dns.kube-system.svc.cluster.local.", miekg.TypeA, kubeDNSIP)
	// An IPv4 Service has no AAAA record but exists: NODATA.
	wantNoData(t, r, "kubernetes.default.svc.cluster.local", miekg.TypeAAAA)
	wantNoData(t, r, "kubernetes.default.svc.cluster.local", miekg.TypeMX)
}

func TestLookupIsCaseInsensitiveAndKeepsTheQuestionsCase(t *testing.T) {
	r := seedRecords(t)
	a := wantAddrs(t, r, "Kubernetes.DEFAULT.svc.Cluster.Local.", miekg.TypeA, kubernetesIP)
	if got := a.A[0].Hdr.Name; got != "Kubernetes.DEFAULT.svc.Cluster.Local." {
		t.Errorf("owner %q: want the question's spelling", got)
	}
}

func TestDualStackService(t *testing.T) {
	r := NewRecords("")
	s := clusterIPService("default", "web", "10.96.0.20", svcPort("http", corev1.ProtocolTCP, 80))
	s.Spec.ClusterIPs = []string{"10.96.0.20", "fd00:10:96::20"}
	r.SetService(s)
	wantAddrs(t, r, "web.default.svc.cluster.local", miekg.TypeA, "10.96.0.20")
	wantAddrs(t, r, "web.default.svc.cluster.local", miekg.TypeAAAA, "fd00:10:96::20")
}

func TestClusterIPServiceSRV(t *testing.T) {
	r := seedRecords(t)
	a := r.Lookup("_https._tcp.kubernetes.default.svc.cluster.local", miekg.TypeSRV)
	if a.Rcode != miekg.RcodeSuccess || len(a.SRV) != 1 {
		t.Fatalf("SRV: rcode %s, records %v", miekg.RcodeToString[a.Rcode], a.RRs())
	}
	srv := a.SRV[0]
	if srv.Port != 443 || srv.Target != "kubernetes.default.svc.cluster.local." || srv.Weight != 100 {
		t.Errorf("SRV %v: want port 443, weight 100, target the Service's name", srv)
	}
	if len(a.Extra) != 1 || a.Extra[0].(*miekg.A).A.String() != kubernetesIP {
		t.Errorf("additional section %v: want the target's A record %s", a.Extra, kubernetesIP)
	}
	// kube-dns: a UDP and a TCP port both named after DNS.
	a = r.Lookup("_dns._udp.kube-dns.kube-system.svc.cluster.local", miekg.TypeSRV)
	if len(a.SRV) != 1 || a.SRV[0].Port != 53 {
		t.Errorf("_dns._udp.kube-dns: %v, want one SRV on port 53", a.RRs())
	}
	wantNXDomain(t, r, "_dns._tcp.kube-dns.kube-system.svc.cluster.local", miekg.TypeSRV)
	wantNXDomain(t, r, "_http._tcp.kubernetes.default.svc.cluster.local", miekg.TypeSRV)
}

func TestHeadlessService(t *testing.T) {
	r := NewRecords("cluster.local")
	r.SetService(headlessService("db", "pg", svcPort("pg", corev1.ProtocolTCP, 5432)))
	// No endpoints yet: NXDOMAIN (spec 2.4.1).
	wantNXDomain(t, r, "pg.db.svc.cluster.local", miekg.TypeA)

	r.SetEndpointSlice(endpointSlice("db", "pg-abc", "pg", []discoveryv1.EndpointPort{slicePort("pg", 5432)},
		ep{ip: "10.244.1.5", hostname: "pg-0", ready: true},
		ep{ip: "10.244.2.7", ready: true},
		ep{ip: "10.244.3.9", hostname: "pg-2", ready: false},
	))
	wantAddrs(t, r, "pg.db.svc.cluster.local", miekg.TypeA, "10.244.1.5", "10.244.2.7")
	wantAddrs(t, r, "pg-0.pg.db.svc.cluster.local", miekg.TypeA, "10.244.1.5")
	// Without a hostname the endpoint is named by its dashed address.
	wantAddrs(t, r, "10-244-2-7.pg.db.svc.cluster.local", miekg.TypeA, "10.244.2.7")
	// Not ready: no record.
	wantNXDomain(t, r, "pg-2.pg.db.svc.cluster.local", miekg.TypeA)

	a := r.Lookup("_pg._tcp.pg.db.svc.cluster.local", miekg.TypeSRV)
	var targets []string
	for _, s := range a.SRV {
		if s.Port != 5432 || s.Weight != 50 {
			t.Errorf("SRV %v: want port 5432, weight 50", s)
		}
		targets = append(targets, s.Target)
	}
	slices.Sort(targets)
	want := []string{"10-244-2-7.pg.db.svc.cluster.local.", "pg-0.pg.db.svc.cluster.local."}
	if !slices.Equal(targets, want) {
		t.Errorf("SRV targets %q, want %q", targets, want)
	}
	if len(a.Extra) != 2 {
		t.Errorf("additional section %v: want the two targets' A records", a.Extra)
	}

	// The endpoint becomes not ready: its records go.
	r.SetEndpointSlice(endpointSlice("db", "pg-abc", "pg", []discoveryv1.EndpointPort{slicePort("pg", 5432)},
		ep{ip: "10.244.1.5", hostname: "pg-0", ready: true}))
	wantAddrs(t, r, "pg.db.svc.cluster.local", miekg.TypeA, "10.244.1.5")
	wantNXDomain(t, r, "10-244-2-7.pg.db.svc.cluster.local", miekg.TypeA)
	r.DeleteEndpointSlice(&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "db", Name: "pg-abc"}})
	wantNXDomain(t, r, "pg.db.svc.cluster.local", miekg.TypeA)
}

func TestHeadlessServiceOverSeveralSlices(t *testing.T) {
	r := NewRecords("cluster.local")
	r.SetService(headlessService("db", "pg"))
	r.SetEndpointSlice(endpointSlice("db", "pg-1", "pg", nil, ep{ip: "10.244.1.5", ready: true}))
	r.SetEndpointSlice(endpointSlice("db", "pg-2", "pg", nil, ep{ip: "10.244.2.5", ready: true}))
	wantAddrs(t, r, "pg.db.svc.cluster.local", miekg.TypeA, "10.244.1.5", "10.244.2.5")
	// No ports: no SRV records, the name still exists.
	wantNoData(t, r, "pg.db.svc.cluster.local", miekg.TypeSRV)
}

func TestExternalNameIsCNAME(t *testing.T) {
	r := seedRecords(t)
	r.SetService(externalService("default", "search", "www.example.com"))
	a := r.Lookup("search.default.svc.cluster.local", miekg.TypeA)
	if a.Rcode != miekg.RcodeSuccess || len(a.CNAME) != 1 || a.CNAME[0].Target != "www.example.com." || len(a.A) != 0 {
		t.Fatalf("ExternalName: %s %v, want only CNAME www.example.com.", miekg.RcodeToString[a.Rcode], a.RRs())
	}
	ips, cname, found := r.LookupA("search.default.svc.cluster.local")
	if !found || cname != "www.example.com" || len(ips) != 0 {
		t.Errorf("LookupA: %v %q %v", ips, cname, found)
	}
	// An alias has no ports.
	wantNXDomain(t, r, "_http._tcp.search.default.svc.cluster.local", miekg.TypeSRV)

	// A target inside the cluster domain is followed.
	r.SetService(externalService("default", "api", "kubernetes.default.svc.cluster.local"))
	a = r.Lookup("api.default.svc.cluster.local", miekg.TypeA)
	if len(a.CNAME) != 1 || len(a.A) != 1 || a.A[0].A.String() != kubernetesIP || a.A[0].Hdr.Name != "kubernetes.default.svc.cluster.local." {
		t.Errorf("in-cluster ExternalName: %v, want the CNAME and the target's A record", a.RRs())
	}
	// Two aliases naming each other end without looping.
	r.SetService(externalService("default", "ping", "pong.default.svc.cluster.local"))
	r.SetService(externalService("default", "pong", "ping.default.svc.cluster.local"))
	if a := r.Lookup("ping.default.svc.cluster.local", miekg.TypeA); len(a.CNAME) == 0 || len(a.A) != 0 {
		t.Errorf("CNAME loop: %v", a.RRs())
	}
	// An IP address is not a name: CoreDNS makes no record of it.
	r.SetService(externalService("default", "ip", "192.0.2.1"))
	wantNXDomain(t, r, "ip.default.svc.cluster.local", miekg.TypeA)
}

// The cluster's Corefile says "pods insecure": a dashed address answers
// in any namespace that exists, whether or not a pod holds it.
func TestPodRecordsAnswerAnyAddressInAnExistingNamespace(t *testing.T) {
	// rule: DNS-1
	r := NewRecords("cluster.local")
	wantNXDomain(t, r, "10-244-1-5.default.pod.cluster.local", miekg.TypeA)
	r.SetNamespace(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
	wantAddrs(t, r, "10-244-1-5.default.pod.cluster.local", miekg.TypeA, "10.244.1.5")
	wantAddrs(t, r, "10-244-9-9.default.pod.cluster.local", miekg.TypeA, "10.244.9.9")
	wantAddrs(t, r, "fd00-10-244--5.default.pod.cluster.local", miekg.TypeAAAA, "fd00:10:244::5")
	wantNoData(t, r, "10-244-1-5.default.pod.cluster.local", miekg.TypeAAAA)
	// A label that is not an address, or a namespace that does not exist.
	wantNXDomain(t, r, "not-an-ip.default.pod.cluster.local", miekg.TypeA)
	wantNXDomain(t, r, "10-244-1-5.other.pod.cluster.local", miekg.TypeA)

	// Records built from pods alone (the node's model) know a namespace
	// while a pod of it is there.
	r = NewRecords("cluster.local")
	r.SetPod(runningPod("web", "web-1", "10.244.1.5"))
	wantAddrs(t, r, "10-244-3-3.web.pod.cluster.local", miekg.TypeA, "10.244.3.3")
	r.DeletePod(runningPod("web", "web-1", ""))
	wantNXDomain(t, r, "10-244-3-3.web.pod.cluster.local", miekg.TypeA)
}

func TestNXDomainAndNoData(t *testing.T) {
	r := seedRecords(t)
	wantNXDomain(t, r, "nothere.default.svc.cluster.local", miekg.TypeA)
	wantNXDomain(t, r, "kubernetes.nothere.svc.cluster.local", miekg.TypeA)
	wantNXDomain(t, r, "kubernetes.cluster.local", miekg.TypeA)
	wantNXDomain(t, r, "a.b.c.kubernetes.default.svc.cluster.local", miekg.TypeA)
	a := wantNXDomain(t, r, "nothere.default.svc.cluster.local", miekg.TypeA)
	if !a.Authoritative || len(a.Ns) != 1 || a.Ns[0].(*miekg.SOA).Minttl != TTL {
		t.Errorf("NXDOMAIN in the zone: %+v, want authoritative with the SOA", a)
	}
	// Outside the cluster domain: there is nothing to forward to.
	a = wantNXDomain(t, r, "www.example.com", miekg.TypeA)
	if a.Authoritative {
		t.Errorf("www.example.com: authoritative, want not")
	}
	// Names above the Services exist and have no records.
	wantNoData(t, r, "cluster.local", miekg.TypeA)
	wantNoData(t, r, "svc.cluster.local", miekg.TypeA)
	wantNoData(t, r, "default.svc.cluster.local", miekg.TypeA)
	wantNoData(t, r, "kube-system.svc.cluster.local", miekg.TypeA)
	wantNoData(t, r, "pod.cluster.local", miekg.TypeA)
}

func TestZoneApexAndSchemaVersion(t *testing.T) {
	r := seedRecords(t)
	a := r.Lookup("cluster.local.", miekg.TypeSOA)
	if len(a.SOA) != 1 || a.SOA[0].Ns != "ns.dns.cluster.local." || a.SOA[0].Minttl != TTL {
		t.Errorf("apex SOA: %v", a.RRs())
	}
	before := a.SOA[0].Serial
	r.SetService(clusterIPService("default", "web", "10.96.0.20", svcPort("http", corev1.ProtocolTCP, 80)))
	if after := r.SOA().Serial; after == before {
		t.Errorf("SOA serial %d did not change with the records", after)
	}
	a = r.Lookup("dns-version.cluster.local", miekg.TypeTXT)
	if len(a.TXT) != 1 || !slices.Equal(a.TXT[0].Txt, []string{"1.1.0"}) {
		t.Errorf("dns-version TXT: %v", a.RRs())
	}
}

func TestReversePTR(t *testing.T) {
	r := seedRecords(t)
	r.SetService(headlessService("db", "pg"))
	r.SetEndpointSlice(endpointSlice("db", "pg-1", "pg", nil, ep{ip: "10.244.1.5", hostname: "pg-0", ready: true}))
	cases := map[string]string{
		"1.0.96.10.in-addr.arpa.": "kubernetes.default.svc.cluster.local.",
		"5.1.244.10.in-addr.arpa": "pg-0.pg.db.svc.cluster.local.",
	}
	for q, want := range cases {
		a := r.Lookup(q, miekg.TypePTR)
		if len(a.PTR) != 1 || a.PTR[0].Ptr != want {
			t.Errorf("PTR %s: %v, want %s", q, a.RRs(), want)
		}
	}
	v6 := NewRecords("cluster.local")
	s := clusterIPService("default", "web", "fd00:10:96::20", svcPort("http", corev1.ProtocolTCP, 80))
	v6.SetService(s)
	q, _ := miekg.ReverseAddr("fd00:10:96::20")
	if a := v6.Lookup(q, miekg.TypePTR); len(a.PTR) != 1 || a.PTR[0].Ptr != "web.default.svc.cluster.local." {
		t.Errorf("PTR %s: %v", q, a.RRs())
	}
	if a := r.Lookup("8.8.8.8.in-addr.arpa", miekg.TypePTR); a.Rcode != miekg.RcodeNameError || a.Authoritative {
		t.Errorf("PTR of a non-cluster address: %+v, want non-authoritative NXDOMAIN", a)
	}
}

func TestServiceUpdateAndDelete(t *testing.T) {
	r := seedRecords(t)
	web := clusterIPService("default", "web", "10.96.0.20", svcPort("http", corev1.ProtocolTCP, 80))
	r.SetService(web)
	wantAddrs(t, r, "web.default.svc.cluster.local", miekg.TypeA, "10.96.0.20")
	// Recreated with another address: the old one is gone everywhere.
	r.SetService(clusterIPService("default", "web", "10.96.0.21", svcPort("http", corev1.ProtocolTCP, 80)))
	wantAddrs(t, r, "web.default.svc.cluster.local", miekg.TypeA, "10.96.0.21")
	if a := r.Lookup("20.0.96.10.in-addr.arpa", miekg.TypePTR); a.Rcode != miekg.RcodeNameError {
		t.Errorf("PTR of the old address: %v", a.RRs())
	}
	r.DeleteService(web)
	wantNXDomain(t, r, "web.default.svc.cluster.local", miekg.TypeA)
	// A namespace with no object left is unknown again.
	r.SetService(clusterIPService("shop", "cart", "10.96.0.30", svcPort("http", corev1.ProtocolTCP, 80)))
	wantNoData(t, r, "shop.svc.cluster.local", miekg.TypeA)
	r.DeleteService(clusterIPService("shop", "cart", ""))
	wantNXDomain(t, r, "shop.svc.cluster.local", miekg.TypeA)
}

func TestCustomClusterDomain(t *testing.T) {
	r := NewRecords("Corp.Example.")
	r.SetService(clusterIPService("default", "kubernetes", kubernetesIP, svcPort("https", corev1.ProtocolTCP, 443)))
	wantAddrs(t, r, "kubernetes.default.svc.corp.example", miekg.TypeA, kubernetesIP)
	wantNXDomain(t, r, "kubernetes.default.svc.cluster.local", miekg.TypeA)
	if got := r.Candidates("kubernetes", "default", "windows"); !slices.Equal(got, []string{"kubernetes.default.svc.corp.example"}) {
		t.Errorf("candidates: %q", got)
	}
}

// Informer handlers update while the server answers: run with -race.
func TestConcurrentUpdatesAndLookups(t *testing.T) {
	r := seedRecords(t)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 200 {
				name := fmt.Sprintf("svc-%d-%d", w, i%10)
				ip := fmt.Sprintf("10.96.%d.%d", w+1, i%10+1)
				r.SetService(clusterIPService("default", name, ip, svcPort("http", corev1.ProtocolTCP, 80)))
				r.SetPod(runningPod("default", name, fmt.Sprintf("10.244.%d.%d", w+1, i%10+1)))
				if i%3 == 0 {
					r.DeleteService(clusterIPService("default", name, ""))
				}
			}
		})
		wg.Go(func() {
			for range 200 {
				_ = r.Lookup("kubernetes.default.svc.cluster.local", miekg.TypeA)
				_ = r.Lookup("_http._tcp.svc-0-1.default.svc.cluster.local", miekg.TypeSRV)
				_ = r.Lookup("1.0.96.10.in-addr.arpa", miekg.TypePTR)
			}
		})
	}
	wg.Wait()
	wantAddrs(t, r, "kubernetes.default.svc.cluster.local", miekg.TypeA, kubernetesIP)
}
