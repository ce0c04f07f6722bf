package reach

import (
	"github.com/winkube/winkube/pkg/network"
	"github.com/winkube/winkube/pkg/network/dns"
)

// ClusterDNS is the cluster DNS as the DNS server answers it, built from
// the same objects the model read.
func ClusterDNS(s *network.Snapshot, clusterDomain string) Resolver {
	return ClusterRecords(s, clusterDomain)
}

// ClusterRecords are the cluster DNS's records, built from the same
// objects the model read.
func ClusterRecords(s *network.Snapshot, clusterDomain string) *dns.Records {
	if clusterDomain == "" {
		clusterDomain = "cluster.local"
	}
	r := dns.NewRecords(clusterDomain)
	if s == nil {
		return r
	}
	for _, svc := range s.Services {
		r.SetService(svc)
	}
	for _, es := range s.EndpointSlices {
		r.SetEndpointSlice(es)
	}
	for _, p := range s.Pods {
		r.SetPod(p)
	}
	return r
}
