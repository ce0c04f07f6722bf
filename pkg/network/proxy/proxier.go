package proxy

import (
	"net/netip"
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/winkube/winkube/pkg/network/hns"
	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

// Config is what kube-proxy on one Windows node knows: its flags, the
// node's build and the HNS network it programs.
type Config struct {
	// NodeName is the name kube-proxy runs as (--hostname-override, else
	// the host name): endpoints whose nodeName equals it are local.
	NodeName string
	NodeIP   netip.Addr
	Build    windows.Build
	// Overlay is true on an Overlay network (flannel vxlan), false on
	// L2Bridge (host-gw).
	Overlay     bool
	NetworkName string
	NetworkID   string
	// SourceVIP is --source-vip (overlay only).
	SourceVIP netip.Addr
	// HostMAC is the MAC of the node's interface; overlay endpoints that
	// stand for the host (source VIP, service VIPs) carry it.
	HostMAC string
	// EnableDSR is --enable-dsr, accepted (WinDSR gate on, KP-2).
	EnableDSR bool
	K8sMinor  int
	// LocalEndpoints are the endpoints HNS holds on the node (pods, the
	// source VIP), by IP: a local backend without one is skipped.
	LocalEndpoints map[netip.Addr]string
	// Remotes are the other nodes' pod subnets, the RemoteSubnetRoute
	// policies flanneld adds to an overlay network.
	Remotes []Remote
}

// Remote is another node's pod subnet and the address it is reached at.
type Remote struct {
	Node            string
	PodCIDR         netip.Prefix
	ProviderAddress netip.Addr
}

// Proxier is one node's winkernel proxier: the Services and EndpointSlices
// it has seen and the HNS objects it programmed for each Service.
type Proxier struct {
	cfg      Config
	services map[types.NamespacedName]*corev1.Service
	slices   map[types.NamespacedName]map[string]*discoveryv1.EndpointSlice
	state    map[types.NamespacedName]*serviceState
	remotes  map[netip.Addr]*remoteEndpoint
	// made caches remote endpoints by address: they depend on nothing
	// else, and most backends are shared by many syncs.
	made map[netip.Addr]hns.Endpoint
}

// serviceState is what one Service programmed.
type serviceState struct {
	lbs      []hns.LoadBalancer
	remotes  []hns.Endpoint // remote endpoints it references
	findings []rules.Finding
}

type remoteEndpoint struct {
	ep   hns.Endpoint
	refs int
}

// NewProxier starts an empty proxier for one node.
func NewProxier(cfg Config) *Proxier {
	return &Proxier{
		cfg:      cfg,
		services: map[types.NamespacedName]*corev1.Service{},
		slices:   map[types.NamespacedName]map[string]*discoveryv1.EndpointSlice{},
		state:    map[types.NamespacedName]*serviceState{},
		remotes:  map[netip.Addr]*remoteEndpoint{},
		made:     map[netip.Addr]hns.Endpoint{},
	}
}

// Sync programs every Service from scratch.
func (p *Proxier) Sync(services []*corev1.Service, slices []*discoveryv1.EndpointSlice) {
	for _, s := range slices {
		if key, ok := sliceService(s); ok {
			p.sliceMap(key)[s.Name] = s
		}
	}
	for _, svc := range services {
		key := types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}
		p.services[key] = svc
		p.syncService(key)
	}
}

// UpdateService adds or replaces a Service and reprograms it.
func (p *Proxier) UpdateService(svc *corev1.Service) {
	key := types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}
	p.services[key] = svc
	p.syncService(key)
}

// DeleteService removes a Service and what it programmed.
func (p *Proxier) DeleteService(namespace, name string) {
	key := types.NamespacedName{Namespace: namespace, Name: name}
	delete(p.services, key)
	p.syncService(key)
}

// Update applies one added or changed EndpointSlice: only its Service is
// reprogrammed.
func (p *Proxier) Update(slice *discoveryv1.EndpointSlice) {
	key, ok := sliceService(slice)
	if !ok {
		return
	}
	p.sliceMap(key)[slice.Name] = slice
	p.syncService(key)
}

// Delete applies one deleted EndpointSlice.
func (p *Proxier) Delete(slice *discoveryv1.EndpointSlice) {
	key, ok := sliceService(slice)
	if !ok {
		return
	}
	delete(p.slices[key], slice.Name)
	if len(p.slices[key]) == 0 {
		delete(p.slices, key)
	}
	p.syncService(key)
}

func (p *Proxier) sliceMap(key types.NamespacedName) map[string]*discoveryv1.EndpointSlice {
	m := p.slices[key]
	if m == nil {
		m = map[string]*discoveryv1.EndpointSlice{}
		p.slices[key] = m
	}
	return m
}

func sliceService(s *discoveryv1.EndpointSlice) (types.NamespacedName, bool) {
	if s == nil {
		return types.NamespacedName{}, false
	}
	name := s.Labels[discoveryv1.LabelServiceName]
	return types.NamespacedName{Namespace: s.Namespace, Name: name}, name != ""
}

// syncService rebuilds one Service's load balancers and moves the remote
// endpoint references from its old state to its new one.
func (p *Proxier) syncService(key types.NamespacedName) {
	old := p.state[key]
	delete(p.state, key)
	var st *serviceState
	if svc := p.services[key]; svc != nil {
		st = p.buildService(svc, p.serviceSlices(key))
		p.state[key] = st
	}
	if st != nil {
		for _, ep := range st.remotes {
			p.hold(ep)
		}
	}
	if old != nil {
		for _, ep := range old.remotes {
			p.release(ep)
		}
	}
}

func (p *Proxier) hold(ep hns.Endpoint) {
	ip, _ := netip.ParseAddr(ep.IPAddress)
	r := p.remotes[ip]
	if r == nil {
		r = &remoteEndpoint{ep: ep}
		p.remotes[ip] = r
	}
	r.refs++
}

func (p *Proxier) release(ep hns.Endpoint) {
	ip, _ := netip.ParseAddr(ep.IPAddress)
	r := p.remotes[ip]
	if r == nil {
		return
	}
	if r.refs--; r.refs <= 0 {
		delete(p.remotes, ip)
	}
}

// serviceSlices lists a Service's slices in name order.
func (p *Proxier) serviceSlices(key types.NamespacedName) []*discoveryv1.EndpointSlice {
	m := p.slices[key]
	out := make([]*discoveryv1.EndpointSlice, 0, len(m))
	for _, s := range m {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LoadBalancers lists every programmed load balancer, sorted by Service,
// port, kind and frontend.
func (p *Proxier) LoadBalancers() []hns.LoadBalancer {
	out := []hns.LoadBalancer{}
	for _, key := range p.sortedKeys() {
		out = append(out, p.state[key].lbs...)
	}
	return out
}

// RemoteEndpoints lists the remote endpoints the load balancers use
// (KP-4), sorted by IP.
func (p *Proxier) RemoteEndpoints() []hns.Endpoint {
	ips := make([]netip.Addr, 0, len(p.remotes))
	for ip := range p.remotes {
		ips = append(ips, ip)
	}
	sort.Slice(ips, func(i, j int) bool { return ips[i].Less(ips[j]) })
	out := make([]hns.Endpoint, 0, len(ips))
	for _, ip := range ips {
		out = append(out, p.remotes[ip].ep)
	}
	return out
}

// Findings lists what kube-proxy would log about the Services, or the
// documented limitations that decide what the node does with them, by
// Service.
func (p *Proxier) Findings() []rules.Finding {
	var out []rules.Finding
	for _, key := range p.sortedKeys() {
		out = append(out, p.state[key].findings...)
	}
	return out
}

func (p *Proxier) sortedKeys() []types.NamespacedName {
	keys := make([]types.NamespacedName, 0, len(p.state))
	for k := range p.state {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Namespace != keys[j].Namespace {
			return keys[i].Namespace < keys[j].Namespace
		}
		return keys[i].Name < keys[j].Name
	})
	return keys
}
