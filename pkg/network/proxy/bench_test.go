package proxy

import (
	"fmt"
	"net/netip"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// The scale: 2,000 Services and 5,000 endpoints (pods) over 100
// Windows nodes; every pod backs one Service (2.5 backends on average),
// every Service is a NodePort, so each has a cluster IP and a node port
// load balancer.
const (
	benchServices = 2000
	benchPods     = 5000
	benchNodes    = 100
)

type benchCluster struct {
	cfg      Config
	services []*corev1.Service
	slices   []*discoveryv1.EndpointSlice
}

func newBenchCluster() *benchCluster {
	bc := &benchCluster{cfg: overlayConfig(build2022)}
	bc.cfg.NodeName, bc.cfg.LocalEndpoints = "node-0", map[netip.Addr]string{}
	bc.cfg.Remotes = nil
	for n := 1; n < benchNodes; n++ {
		bc.cfg.Remotes = append(bc.cfg.Remotes, Remote{Node: fmt.Sprintf("node-%d", n),
			PodCIDR: netip.MustParsePrefix(fmt.Sprintf("10.244.%d.0/24", n)), ProviderAddress: netip.MustParseAddr(fmt.Sprintf("192.168.%d.%d", n/250, n%250+1))})
	}
	byService := make([][]ep, benchServices)
	for i := 0; i < benchPods; i++ {
		node := i % benchNodes
		ip := fmt.Sprintf("10.244.%d.%d", node, i/benchNodes+3)
		if node == 0 {
			a := netip.MustParseAddr(ip)
			bc.cfg.LocalEndpoints[a] = EndpointID("node-0", a)
		}
		byService[i%benchServices] = append(byService[i%benchServices], ep{ip, fmt.Sprintf("node-%d", node), true})
	}
	for i := 0; i < benchServices; i++ {
		name := fmt.Sprintf("svc-%d", i)
		ip := fmt.Sprintf("10.96.%d.%d", i/250, i%250+1)
		bc.services = append(bc.services, svc(name, ip, corev1.ServiceTypeNodePort, port("http", corev1.ProtocolTCP, 80, 8080, int32(30000+i))))
		bc.slices = append(bc.slices, slice(name, name+"-abc", "http", corev1.ProtocolTCP, 8080, byService[i]...))
	}
	return bc
}

// BenchmarkBuildNodeLoadBalancers programs one node from scratch: every
// Service, its endpoints, remote endpoints and load balancers, listed.
func BenchmarkBuildNodeLoadBalancers(b *testing.B) {
	bc := newBenchCluster()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p := NewProxier(bc.cfg)
		p.Sync(bc.services, bc.slices)
		if len(p.LoadBalancers()) != 2*benchServices {
			b.Fatal("wrong number of load balancers")
		}
	}
}

// BenchmarkApplyEndpointChange applies one EndpointSlice change (an
// endpoint turning not ready and back) to a programmed node.
func BenchmarkApplyEndpointChange(b *testing.B) {
	bc := newBenchCluster()
	p := NewProxier(bc.cfg)
	p.Sync(bc.services, bc.slices)
	before := bc.slices[7]
	after := before.DeepCopy()
	ready := false
	after.Endpoints[0].Conditions.Ready = &ready
	versions := []*discoveryv1.EndpointSlice{after, before}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		p.Update(versions[i%2])
		i++
	}
}
