package dns

import (
	"net/netip"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// Records holds the cluster's DNS records, built from Services,
// EndpointSlices, Pods and Namespaces and updated one object at a time, as
// informers deliver them. It is safe for concurrent use: lookups share a read
// lock, updates take the write lock.
type Records struct {
	domain string // lower case, no trailing dot

	mu         sync.RWMutex
	generation uint32 // the SOA serial: bumped by every change
	services   map[objKey]*service
	slices     map[objKey]*slice
	bySvc      map[objKey][]*slice // service → its slices, by name so answers keep their order
	pods       map[objKey]bool
	namespaces map[string]int // references: the Namespace itself, services, pods
	nsObjects  map[string]bool
	vips       map[netip.Addr]objKey          // ClusterIP → service (PTR)
	epIPs      map[netip.Addr]map[objKey]bool // ready endpoint address → slices (PTR)
}

type objKey struct{ ns, name string }

type serviceKind int

const (
	clusterIP serviceKind = iota
	headless
	externalName
)

type service struct {
	key      objKey
	kind     serviceKind
	ips      []netip.Addr
	external string // ExternalName, lower case, no trailing dot
	ports    []port
}

type port struct {
	name, proto string // lower case
	number      int32  // -1: an EndpointSlice without ports
}

type slice struct {
	key       objKey
	service   objKey
	ports     []port
	endpoints []endpoint // ready ones only
}

type endpoint struct {
	host  string // hostname, or the dashed address when it has none
	fqdn  string // <host>.<service>.<ns>.svc.<domain>.
	addrs []netip.Addr
}

// NewRecords returns empty records for clusterDomain ("cluster.local" when
// empty).
func NewRecords(clusterDomain string) *Records {
	domain := strings.ToLower(strings.TrimSuffix(clusterDomain, "."))
	if domain == "" {
		domain = DefaultClusterDomain
	}
	return &Records{
		domain:     domain,
		generation: 1,
		services:   map[objKey]*service{},
		slices:     map[objKey]*slice{},
		bySvc:      map[objKey][]*slice{},
		pods:       map[objKey]bool{},
		namespaces: map[string]int{},
		nsObjects:  map[string]bool{},
		vips:       map[netip.Addr]objKey{},
		epIPs:      map[netip.Addr]map[objKey]bool{},
	}
}

// ClusterDomain is the domain the records are authoritative for.
func (r *Records) ClusterDomain() string { return r.domain }

func keyOf(namespace, name string) objKey {
	return objKey{ns: strings.ToLower(namespace), name: strings.ToLower(name)}
}

// SetNamespace records that a namespace exists, so <ns>.svc.<domain>
// answers NODATA rather than NXDOMAIN, as CoreDNS does.
func (r *Records) SetNamespace(ns *corev1.Namespace) {
	name := strings.ToLower(ns.Name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.nsObjects[name] {
		r.nsObjects[name] = true
		r.namespaces[name]++
		r.generation++
	}
}

// DeleteNamespace forgets a namespace. Its Services and Pods keep it known
// until they are deleted too.
func (r *Records) DeleteNamespace(ns *corev1.Namespace) {
	name := strings.ToLower(ns.Name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.nsObjects[name] {
		delete(r.nsObjects, name)
		r.unrefNamespace(name)
		r.generation++
	}
}

// SetService adds or replaces a Service's records.
func (r *Records) SetService(s *corev1.Service) {
	svc := toService(s)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deleteService(svc.key)
	r.services[svc.key] = svc
	r.namespaces[svc.key.ns]++
	for _, ip := range svc.ips {
		r.vips[ip] = svc.key
	}
	r.generation++
}

// DeleteService removes a Service's records. Its EndpointSlices stay until
// they are deleted, as the API server's garbage collector deletes them.
func (r *Records) DeleteService(s *corev1.Service) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deleteService(keyOf(s.Namespace, s.Name))
	r.generation++
}

func (r *Records) deleteService(key objKey) {
	old, ok := r.services[key]
	if !ok {
		return
	}
	for _, ip := range old.ips {
		if r.vips[ip] == key {
			delete(r.vips, ip)
		}
	}
	delete(r.services, key)
	r.unrefNamespace(key.ns)
}

func (r *Records) unrefNamespace(ns string) {
	if r.namespaces[ns]--; r.namespaces[ns] <= 0 {
		delete(r.namespaces, ns)
	}
}

func toService(s *corev1.Service) *service {
	svc := &service{key: keyOf(s.Namespace, s.Name)}
	switch {
	case s.Spec.Type == corev1.ServiceTypeExternalName:
		svc.kind = externalName
		svc.external = strings.ToLower(strings.TrimSuffix(s.Spec.ExternalName, "."))
		return svc
	case s.Spec.ClusterIP == corev1.ClusterIPNone:
		svc.kind = headless
	default:
		svc.ips = parseAddrs(s.Spec.ClusterIPs)
		if len(svc.ips) == 0 {
			svc.ips = parseAddrs([]string{s.Spec.ClusterIP})
		}
	}
	for _, p := range s.Spec.Ports {
		proto := p.Protocol
		if proto == "" {
			proto = corev1.ProtocolTCP
		}
		svc.ports = append(svc.ports, port{name: strings.ToLower(p.Name), proto: strings.ToLower(string(proto)), number: p.Port})
	}
	return svc
}

func parseAddrs(ss []string) []netip.Addr {
	var out []netip.Addr
	for _, s := range ss {
		if a, err := netip.ParseAddr(s); err == nil {
			out = append(out, a.Unmap())
		}
	}
	return out
}

// SetEndpointSlice adds or replaces an EndpointSlice's endpoints. Only
// ready endpoints make records (an unset condition counts as ready, as the
// API defines); the EndpointSlice controller already marks the endpoints of
// a Service that publishes not-ready addresses ready.
func (r *Records) SetEndpointSlice(es *discoveryv1.EndpointSlice) {
	key := keyOf(es.Namespace, es.Name)
	sl := toSlice(key, es)
	if sl != nil {
		for i := range sl.endpoints {
			sl.endpoints[i].fqdn = sl.endpoints[i].host + "." + r.serviceName(sl.service)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deleteSlice(key)
	if sl == nil {
		r.generation++
		return
	}
	r.slices[key] = sl
	siblings := r.bySvc[sl.service]
	i, _ := slices.BinarySearchFunc(siblings, key.name, func(s *slice, name string) int { return strings.Compare(s.key.name, name) })
	r.bySvc[sl.service] = slices.Insert(siblings, i, sl)
	for _, e := range sl.endpoints {
		for _, a := range e.addrs {
			if r.epIPs[a] == nil {
				r.epIPs[a] = map[objKey]bool{}
			}
			r.epIPs[a][key] = true
		}
	}
	r.generation++
}

// DeleteEndpointSlice removes an EndpointSlice's endpoints.
func (r *Records) DeleteEndpointSlice(es *discoveryv1.EndpointSlice) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deleteSlice(keyOf(es.Namespace, es.Name))
	r.generation++
}

func (r *Records) deleteSlice(key objKey) {
	old, ok := r.slices[key]
	if !ok {
		return
	}
	for _, e := range old.endpoints {
		for _, a := range e.addrs {
			delete(r.epIPs[a], key)
			if len(r.epIPs[a]) == 0 {
				delete(r.epIPs, a)
			}
		}
	}
	siblings := slices.DeleteFunc(r.bySvc[old.service], func(s *slice) bool { return s.key == key })
	if len(siblings) == 0 {
		delete(r.bySvc, old.service)
	} else {
		r.bySvc[old.service] = siblings
	}
	delete(r.slices, key)
}

// toSlice returns nil for a slice that names no Service or holds FQDN
// addresses, which make no records.
func toSlice(key objKey, es *discoveryv1.EndpointSlice) *slice {
	svcName := es.Labels[discoveryv1.LabelServiceName]
	if svcName == "" || es.AddressType == discoveryv1.AddressTypeFQDN {
		return nil
	}
	sl := &slice{key: key, service: keyOf(es.Namespace, svcName)}
	for _, p := range es.Ports {
		sp := port{number: -1, proto: "tcp"}
		if p.Name != nil {
			sp.name = strings.ToLower(*p.Name)
		}
		if p.Protocol != nil {
			sp.proto = strings.ToLower(string(*p.Protocol))
		}
		if p.Port != nil {
			sp.number = *p.Port
		}
		sl.ports = append(sl.ports, sp)
	}
	if len(sl.ports) == 0 {
		sl.ports = []port{{number: -1}} // still answers A and AAAA
	}
	for _, e := range es.Endpoints {
		if e.Conditions.Ready != nil && !*e.Conditions.Ready {
			continue
		}
		addrs := parseAddrs(e.Addresses)
		if len(addrs) == 0 {
			continue
		}
		host := ""
		if e.Hostname != nil {
			host = strings.ToLower(*e.Hostname)
		}
		if host == "" {
			// The spec leaves an endpoint without a hostname a
			// system-assigned name; CoreDNS uses the dashed address.
			host = dashed(addrs[0])
		}
		sl.endpoints = append(sl.endpoints, endpoint{host: host, addrs: addrs})
	}
	return sl
}

// dashed writes an address the way pod and endpoint names carry it:
// 10.244.1.5 → 10-244-1-5, 2001:db8::1 → 2001-db8--1 (a trailing "-" gets a
// "0", as CoreDNS does, so the label does not end in a hyphen).
func dashed(a netip.Addr) string {
	if a.Is4() {
		return strings.ReplaceAll(a.String(), ".", "-")
	}
	s := strings.ReplaceAll(a.String(), ":", "-")
	if strings.HasSuffix(s, "-") {
		s += "0"
	}
	return s
}

// SetPod records that a pod's namespace exists. The pod's own address
// plays no part: the cluster's Corefile (pkg/addons) sets the kubernetes
// plugin's "pods insecure", in which CoreDNS answers <a-b-c-d>.<ns>.pod.<domain>
// with a-b-c-d in any namespace that exists, whether or not a pod holds
// that address. Records built without Namespace objects (the node's
// model, `winkube net`) learn the namespaces from the pods.
func (r *Records) SetPod(p *corev1.Pod) {
	key := keyOf(p.Namespace, p.Name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.pods[key] {
		r.pods[key] = true
		r.namespaces[key.ns]++
		r.generation++
	}
}

// DeletePod forgets a pod.
func (r *Records) DeletePod(p *corev1.Pod) {
	key := keyOf(p.Namespace, p.Name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pods[key] {
		delete(r.pods, key)
		r.unrefNamespace(key.ns)
		r.generation++
	}
}
