package network

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// benchSnapshot is the scale: 100 Windows nodes (2022, overlay),
// 5,000 pods, 2,000 NodePort Services each backed by every 2,000th pod.
func benchSnapshot() *Snapshot {
	s := &Snapshot{K8sMinor: 36, ConfigMaps: []*corev1.ConfigMap{flannelCM(seedNetConf)},
		DaemonSets: []*appsv1.DaemonSet{proxyDS(seedProxyArgs...)}}
	for n := 0; n < 100; n++ {
		s.Nodes = append(s.Nodes, windowsNode(fmt.Sprintf("win-%03d", n), fmt.Sprintf("192.168.%d.%d", n/250, n%250+1), fmt.Sprintf("10.244.%d.0/24", n), build2022))
	}
	byService := make([][]endpoint, 2000)
	for i := 0; i < 5000; i++ {
		node, ip := fmt.Sprintf("win-%03d", i%100), fmt.Sprintf("10.244.%d.%d", i%100, i/100+3)
		s.Pods = append(s.Pods, pod("default", fmt.Sprintf("p-%d", i), node, ip, nil))
		byService[i%2000] = append(byService[i%2000], endpoint{ip, node, true})
	}
	for i := 0; i < 2000; i++ {
		name := fmt.Sprintf("svc-%d", i)
		s.Services = append(s.Services, service("default", name, fmt.Sprintf("10.96.%d.%d", i/250+1, i%250+1), corev1.ServiceTypeNodePort, tcpPort("http", 80, 8080, int32(30000+i))))
		s.EndpointSlices = append(s.EndpointSlices, slice("default", name, name+"-abc", 8080, "http", byService[i]...))
	}
	return s
}

// BenchmarkBuildModel builds the whole model: every node's HNS state.
func BenchmarkBuildModel(b *testing.B) {
	s := benchSnapshot()
	b.ReportAllocs()
	for b.Loop() {
		if m := Build(s); len(m.Nodes) != 100 || len(m.Nodes[0].HNS.LoadBalancers) != 4000 {
			b.Fatalf("model: %d nodes, %d load balancers on the first", len(m.Nodes), len(m.Nodes[0].HNS.LoadBalancers))
		}
	}
}
