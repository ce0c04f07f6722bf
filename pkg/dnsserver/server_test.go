package dnsserver

import (
	"context"
	"net"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	miekg "github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The seed's kube-dns address in the default service subnet 10.96.0.0/12.
const kubeDNSIP = "10.96.0.10"

func startServer(t *testing.T) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Start(ctx, client, Options{})
	if err != nil {
		t.Fatalf("start dns server: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

// ask sends one question over network ("udp" or "tcp").
func ask(t *testing.T, network, addr, name string, qtype uint16) *miekg.Msg {
	t.Helper()
	c := &miekg.Client{Net: network, Timeout: 5 * time.Second}
	q := new(miekg.Msg)
	q.SetQuestion(miekg.Fqdn(name), qtype)
	r, _, err := c.Exchange(q, addr)
	if err != nil {
		t.Fatalf("%s %s over %s: %v", name, miekg.TypeToString[qtype], network, err)
	}
	return r
}

// addrsIn lists the A and AAAA addresses of an answer, sorted.
func addrsIn(m *miekg.Msg) []string {
	var out []string
	for _, rr := range m.Answer {
		switch r := rr.(type) {
		case *miekg.A:
			out = append(out, r.A.String())
		case *miekg.AAAA:
			out = append(out, r.AAAA.String())
		}
	}
	slices.Sort(out)
	return out
}

// waitAddrs waits until the server answers name's A query with want over
// both UDP and TCP: the informers deliver changes a moment after the API.
func waitAddrs(t *testing.T, addr, name string, want ...string) {
	t.Helper()
	for _, network := range []string{"udp", "tcp"} {
		waitFor(t, 30*time.Second, name+" over "+network, func() (bool, string) {
			m := ask(t, network, addr, name, miekg.TypeA)
			got := addrsIn(m)
			return m.Rcode == miekg.RcodeSuccess && slices.Equal(got, want), miekg.RcodeToString[m.Rcode] + " " + strings.Join(got, ",")
		})
	}
}

func waitRcode(t *testing.T, addr, name string, qtype uint16, rcode int) {
	t.Helper()
	for _, network := range []string{"udp", "tcp"} {
		waitFor(t, 30*time.Second, name+" "+miekg.RcodeToString[rcode]+" over "+network, func() (bool, string) {
			m := ask(t, network, addr, name, qtype)
			return m.Rcode == rcode, m.String()
		})
	}
}

func create[T any](t *testing.T, what string, obj T, f func(context.Context, T, metav1.CreateOptions) (T, error)) T {
	t.Helper()
	created, err := f(context.Background(), obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s: %v", what, err)
	}
	return created
}

func TestServerAnswersServicesFromTheAPI(t *testing.T) {
	needCluster(t)
	s := startServer(t)
	addr := s.Addr()
	if host, _, _ := net.SplitHostPort(addr); host != "127.0.0.1" {
		t.Fatalf("Addr %q: want 127.0.0.1:PORT", addr)
	}
	ns := newNamespace(t)
	svcs := client.CoreV1().Services(ns)

	// A ClusterIP Service with the seed's kube-dns address and ports.
	dns := create(t, "kube-dns Service", &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-dns"},
		Spec: corev1.ServiceSpec{ClusterIP: kubeDNSIP, Ports: []corev1.ServicePort{
			{Name: "dns", Protocol: corev1.ProtocolUDP, Port: 53},
			{Name: "dns-tcp", Protocol: corev1.ProtocolTCP, Port: 53},
		}},
	}, svcs.Create)
	name := "kube-dns." + ns + ".svc.cluster.local"
	waitAddrs(t, addr, name, kubeDNSIP)
	for _, network := range []string{"udp", "tcp"} {
		m := ask(t, network, addr, name, miekg.TypeA)
		if !m.Authoritative || m.Answer[0].Header().Ttl != 5 {
			t.Errorf("%s over %s: AA=%v TTL=%d, want authoritative with TTL 5", name, network, m.Authoritative, m.Answer[0].Header().Ttl)
		}
		m = ask(t, network, addr, "_dns-tcp._tcp."+name, miekg.TypeSRV)
		srv, ok := first[*miekg.SRV](m.Answer)
		if !ok || srv.Port != 53 || srv.Target != name+"." {
			t.Errorf("SRV _dns-tcp._tcp over %s: %v, want port 53 on %s.", network, m.Answer, name)
		}
		if glue, ok := first[*miekg.A](m.Extra); !ok || glue.A.String() != kubeDNSIP {
			t.Errorf("SRV over %s: additional %v, want A %s", network, m.Extra, kubeDNSIP)
		}
	}
	// Every cluster's API server Service.
	kubernetes, err := client.CoreV1().Services("default").Get(context.Background(), "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get the kubernetes Service: %v", err)
	}
	waitAddrs(t, addr, "kubernetes.default.svc.cluster.local", kubernetes.Spec.ClusterIP)

	// A headless Service whose endpoints the test writes itself.
	create(t, "headless Service", &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "pg"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: []corev1.ServicePort{
			{Name: "pg", Protocol: corev1.ProtocolTCP, Port: 5432},
		}},
	}, svcs.Create)
	esClient := client.DiscoveryV1().EndpointSlices(ns)
	es := create(t, "EndpointSlice", pgSlice(ep{"10.244.1.5", "pg-0", true}, ep{"10.244.2.7", "pg-1", false}), esClient.Create)
	pg := "pg." + ns + ".svc.cluster.local"
	waitAddrs(t, addr, pg, "10.244.1.5")
	waitAddrs(t, addr, "pg-0."+pg, "10.244.1.5")
	waitRcode(t, addr, "pg-1."+pg, miekg.TypeA, miekg.RcodeNameError) // not ready
	m := ask(t, "udp", addr, "_pg._tcp."+pg, miekg.TypeSRV)
	if srv, ok := first[*miekg.SRV](m.Answer); !ok || len(m.Answer) != 1 || srv.Port != 5432 || srv.Target != "pg-0."+pg+"." {
		t.Errorf("headless SRV: %v, want one on port 5432 at pg-0.%s.", m.Answer, pg)
	}

	// The second endpoint becomes ready: it is answered too.
	es.Endpoints[1].Conditions.Ready = ptr.To(true)
	if _, err := esClient.Update(context.Background(), es, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update EndpointSlice: %v", err)
	}
	waitAddrs(t, addr, pg, "10.244.1.5", "10.244.2.7")
	waitAddrs(t, addr, "pg-1."+pg, "10.244.2.7")

	// An ExternalName Service is a CNAME; nothing forwards its target.
	create(t, "ExternalName Service", &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "search"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "www.example.com"},
	}, svcs.Create)
	search := "search." + ns + ".svc.cluster.local"
	waitRcode(t, addr, search, miekg.TypeA, miekg.RcodeSuccess)
	for _, network := range []string{"udp", "tcp"} {
		m := ask(t, network, addr, search, miekg.TypeA)
		if c, ok := first[*miekg.CNAME](m.Answer); !ok || c.Target != "www.example.com." {
			t.Errorf("ExternalName over %s: %v, want CNAME www.example.com.", network, m.Answer)
		}
	}

	// Unknown names in the zone: NXDOMAIN with the zone's SOA.
	for _, network := range []string{"udp", "tcp"} {
		m := ask(t, network, addr, "nothere."+ns+".svc.cluster.local", miekg.TypeA)
		if m.Rcode != miekg.RcodeNameError || !m.Authoritative || len(m.Ns) != 1 {
			t.Errorf("unknown Service over %s: %s AA=%v authority %v, want authoritative NXDOMAIN with the SOA", network, miekg.RcodeToString[m.Rcode], m.Authoritative, m.Ns)
		}
		// Outside the cluster zone: refused, as CoreDNS without forward.
		if m := ask(t, network, addr, "www.example.com", miekg.TypeA); m.Rcode != miekg.RcodeRefused {
			t.Errorf("www.example.com over %s: %s, want REFUSED", network, miekg.RcodeToString[m.Rcode])
		}
	}

	// Deleting a Service removes its name.
	if err := svcs.Delete(context.Background(), dns.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete Service: %v", err)
	}
	waitRcode(t, addr, name, miekg.TypeA, miekg.RcodeNameError)
}

// The Corefile's "pods insecure": a pod name answers with its address in
// any namespace that exists, with no pod behind it (and no pod watch).
func TestServerAnswersPodRecords(t *testing.T) {
	// rule: DNS-1
	needCluster(t)
	s := startServer(t)
	ns := newNamespace(t)
	waitAddrs(t, s.Addr(), "10-244-1-5."+ns+".pod.cluster.local", "10.244.1.5")
	waitRcode(t, s.Addr(), "10-244-1-5."+ns+"-none.pod.cluster.local", miekg.TypeA, miekg.RcodeNameError)
	waitRcode(t, s.Addr(), "web."+ns+".pod.cluster.local", miekg.TypeA, miekg.RcodeNameError)
}

func TestCloseReleasesThePortAndStopsEverything(t *testing.T) {
	needCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Start(ctx, client, Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	addr := s.Addr()
	ask(t, "udp", addr, "kubernetes.default.svc.cluster.local", miekg.TypeA)
	ask(t, "tcp", addr, "kubernetes.default.svc.cluster.local", miekg.TypeA)
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		t.Fatalf("udp %s still bound after Close: %v", addr, err)
	}
	pc.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("tcp %s still bound after Close: %v", addr, err)
	}
	ln.Close()
	// The servers' and informers' goroutines are gone; no other test runs
	// one at the same time.
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	for _, frame := range []string{"github.com/miekg/dns.(*Server)", "pkg/dnsserver.(*Server)", "k8s.io/client-go/tools/cache.(*Reflector)"} {
		if strings.Contains(stacks, frame) {
			t.Errorf("a goroutine in %s is still running after Close", frame)
		}
	}
}

func TestStartGivesUpWithItsContext(t *testing.T) {
	needCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if s, err := Start(ctx, client, Options{}); err == nil {
		s.Close()
		t.Fatal("Start with a cancelled context: no error")
	}
}

func TestStartChecksOptionsAddr(t *testing.T) {
	for _, bad := range []string{"0.0.0.0:53", "10.96.0.10:53", "localhost", "127.0.0.1"} {
		if _, err := checkAddr(bad); err == nil || !strings.Contains(err.Error(), "Options.Addr") {
			t.Errorf("Options.Addr %q: error %v, want one naming Options.Addr", bad, err)
		}
	}
	if got, err := checkAddr(""); err != nil || got != "127.0.0.1:0" {
		t.Errorf("empty Options.Addr: %q %v, want 127.0.0.1:0", got, err)
	}
}

func first[T miekg.RR](rrs []miekg.RR) (T, bool) {
	for _, rr := range rrs {
		if r, ok := rr.(T); ok {
			return r, true
		}
	}
	var zero T
	return zero, false
}

type ep struct {
	ip, hostname string
	ready        bool
}

func pgSlice(eps ...ep) *discoveryv1.EndpointSlice {
	es := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "pg-1", Labels: map[string]string{discoveryv1.LabelServiceName: "pg"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("pg"), Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To[int32](5432)}},
	}
	for _, e := range eps {
		es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{e.ip},
			Hostname:   ptr.To(e.hostname),
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(e.ready)},
		})
	}
	return es
}
