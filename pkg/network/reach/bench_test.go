package reach

import "testing"

// BenchmarkCheckServiceVIP is the decision the emulated pod network makes
// for every new connection: a Linux pod dialling a Service's ClusterIP,
// load-balanced to a Windows pod on another node.
func BenchmarkCheckServiceVIP(b *testing.B) {
	c := newFixture().build()
	req := Request{Source: "pod/default/linux-client", Target: "10.96.10.10", Port: 80, Protocol: TCP}
	b.ReportAllocs()
	for b.Loop() {
		res, err := c.Check(req)
		if err != nil || !res.Reachable {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// BenchmarkCheckWindowsPodToService is the same from a Windows pod, through
// its node's HNS load balancer.
func BenchmarkCheckWindowsPodToService(b *testing.B) {
	c := newFixture().build()
	req := Request{Source: "pod/default/win-client", Target: "10.96.10.10", Port: 80, Protocol: TCP}
	b.ReportAllocs()
	for b.Loop() {
		res, err := c.Check(req)
		if err != nil || !res.Reachable {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// BenchmarkVerdictServiceVIP is BenchmarkCheckServiceVIP without the hops,
// as the pod network asks.
func BenchmarkVerdictServiceVIP(b *testing.B) {
	c := newFixture().build()
	req := Request{Source: "pod/default/linux-client", Target: "10.96.10.10", Port: 80, Protocol: TCP}
	b.ReportAllocs()
	for b.Loop() {
		res, err := c.Verdict(req)
		if err != nil || !res.Reachable {
			b.Fatalf("%+v %v", res, err)
		}
	}
}
