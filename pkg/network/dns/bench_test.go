package dns

import (
	"fmt"
	"testing"

	miekg "github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// benchRecords is the benchmark cluster: 2,000 Services, 5,000
// endpoints (200 headless Services hold them, 25 each), a pod per endpoint.
func benchRecords(b *testing.B) *Records {
	b.Helper()
	r := NewRecords("cluster.local")
	for i := range 2000 {
		ns := fmt.Sprintf("ns-%d", i%20)
		name := fmt.Sprintf("svc-%d", i)
		if i < 200 {
			r.SetService(headlessService(ns, name, svcPort("http", corev1.ProtocolTCP, 80)))
			var eps []ep
			for j := range 25 {
				ip := fmt.Sprintf("10.244.%d.%d", i, j+1)
				eps = append(eps, ep{ip: ip, hostname: fmt.Sprintf("%s-%d", name, j), ready: true})
				r.SetPod(runningPod(ns, fmt.Sprintf("%s-%d", name, j), ip))
			}
			r.SetEndpointSlice(endpointSlice(ns, name+"-x", name, []discoveryv1.EndpointPort{slicePort("http", 80)}, eps...))
			continue
		}
		ip := fmt.Sprintf("10.96.%d.%d", i/250, i%250+1)
		r.SetService(clusterIPService(ns, name, ip, svcPort("http", corev1.ProtocolTCP, 80)))
	}
	return r
}

func BenchmarkLookup(b *testing.B) {
	r := benchRecords(b)
	cases := []struct {
		name  string
		qname string
		qtype uint16
	}{
		{"ClusterIP_A", "svc-1234.ns-14.svc.cluster.local.", miekg.TypeA},
		{"ClusterIP_SRV", "_http._tcp.svc-1234.ns-14.svc.cluster.local.", miekg.TypeSRV},
		{"Headless25_A", "svc-17.ns-17.svc.cluster.local.", miekg.TypeA},
		{"Headless25_SRV", "_http._tcp.svc-17.ns-17.svc.cluster.local.", miekg.TypeSRV},
		{"Pod_A", "10-244-17-3.ns-17.pod.cluster.local.", miekg.TypeA},
		{"NXDOMAIN", "nothere.ns-3.svc.cluster.local.", miekg.TypeA},
		{"PTR", "3.17.244.10.in-addr.arpa.", miekg.TypePTR},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if a := r.Lookup(c.qname, c.qtype); len(a.RRs()) == 0 && a.Rcode == miekg.RcodeSuccess {
					b.Fatalf("%s: no records", c.qname)
				}
			}
		})
	}
	// Many resolvers at once share the read lock.
	b.Run("ClusterIP_A_parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				r.Lookup("svc-1234.ns-14.svc.cluster.local.", miekg.TypeA)
			}
		})
	})
}

// BenchmarkSetEndpointSlice: one informer update of a 25-endpoint slice.
func BenchmarkSetEndpointSlice(b *testing.B) {
	r := benchRecords(b)
	var eps []ep
	for j := range 25 {
		eps = append(eps, ep{ip: fmt.Sprintf("10.244.17.%d", j+1), ready: j%2 == 0})
	}
	es := endpointSlice("ns-17", "svc-17-x", "svc-17", []discoveryv1.EndpointPort{slicePort("http", 80)}, eps...)
	b.ReportAllocs()
	for b.Loop() {
		r.SetEndpointSlice(es)
	}
}
