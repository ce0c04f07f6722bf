package proxy

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/network/hns"
	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

var (
	build2016 = windows.Build{Major: 10, Build: windows.Build2016}
	build2019 = windows.Build{Major: 10, Build: windows.Build2019}
	build2022 = windows.Build{Major: 10, Build: windows.Build2022}
)

// The seed's addresses: node win-1 (192.168.1.20) with pod subnet
// 10.244.1.0/24 and a local pod 10.244.1.5; win-2 (192.168.1.30) with
// 10.244.2.0/24.
const (
	localPod  = "10.244.1.5"
	remotePod = "10.244.2.7"
)

// overlayConfig is kube-proxy on an overlay node of the given build.
func overlayConfig(b windows.Build) Config {
	local := netip.MustParseAddr(localPod)
	return Config{
		NodeName: "win-1", NodeIP: netip.MustParseAddr("192.168.1.20"), Build: b, Overlay: true,
		NetworkName: "vxlan0", NetworkID: "NET", SourceVIP: netip.MustParseAddr("10.244.1.2"), HostMAC: "00-15-5D-00-00-01",
		K8sMinor:       36,
		LocalEndpoints: map[netip.Addr]string{local: EndpointID("win-1", local)},
		Remotes: []Remote{
			{Node: "win-2", PodCIDR: netip.MustParsePrefix("10.244.2.0/24"), ProviderAddress: netip.MustParseAddr("192.168.1.30")},
		},
	}
}

func l2bridgeConfig(b windows.Build) Config {
	c := overlayConfig(b)
	c.Overlay, c.NetworkName, c.SourceVIP = false, "cbr0", netip.Addr{}
	return c
}

func svc(name, clusterIP string, typ corev1.ServiceType, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       corev1.ServiceSpec{Type: typ, ClusterIP: clusterIP, ClusterIPs: []string{clusterIP}, Ports: ports},
	}
}

func port(name string, proto corev1.Protocol, p, target, nodePort int32) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Protocol: proto, Port: p, TargetPort: intstr.FromInt32(target), NodePort: nodePort}
}

type ep struct {
	ip, node string
	ready    bool
}

func slice(svc, name, portName string, proto corev1.Protocol, p int32, eps ...ep) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To(portName), Protocol: ptr.To(proto), Port: ptr.To(p)}},
	}
	for _, e := range eps {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{
			Addresses: []string{e.ip}, NodeName: ptr.To(e.node),
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(e.ready)},
		})
	}
	return s
}

// both: a ready backend on this node and one on win-2.
func both(svcName string, proto corev1.Protocol, p int32) *discoveryv1.EndpointSlice {
	return slice(svcName, svcName+"-1", "http", proto, p, ep{localPod, "win-1", true}, ep{remotePod, "win-2", true})
}

// program runs one Sync and returns the proxier.
func program(cfg Config, svcs []*corev1.Service, slices ...*discoveryv1.EndpointSlice) *Proxier {
	p := NewProxier(cfg)
	p.Sync(svcs, slices)
	return p
}

func lbOf(lbs []hns.LoadBalancer, kind string) *hns.LoadBalancer {
	for i := range lbs {
		if lbs[i].Kind == kind {
			return &lbs[i]
		}
	}
	return nil
}

func findingsOf(p *Proxier, rule string) []rules.Finding {
	var out []rules.Finding
	for _, f := range p.Findings() {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}
