package reach

import (
	"net/netip"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network"
)

// Checker answers reachability questions about one model.
type Checker struct {
	m        *network.Model
	resolver Resolver
	pods     map[string]*corev1.Pod // namespace/name
	podsByIP map[netip.Addr]*corev1.Pod
	services map[string]*corev1.Service // namespace/name
	vips     map[netip.Addr]vip
	nodeByIP map[netip.Addr]*network.Node
	// Pick, when set, chooses which of a Service's n backends a connection
	// from src goes to (load balancing, ClientIP session affinity); unset,
	// a check always names the first.
	Pick func(svc *corev1.Service, src netip.Addr, n int) int

	epMu sync.Mutex
	eps  map[epKey][]endpoint // endpointsOf's lists
}

// vip is a Service address: its ClusterIP, an externalIP or a load
// balancer ingress IP.
type vip struct {
	svc  *corev1.Service
	kind string // hns.KindClusterIP, KindExternalIP or KindLoadBalancer
}

// New indexes the model for checks. resolver answers cluster DNS names.
func New(m *network.Model, resolver Resolver) *Checker {
	c := &Checker{
		m: m, resolver: resolver,
		pods: map[string]*corev1.Pod{}, podsByIP: map[netip.Addr]*corev1.Pod{},
		services: map[string]*corev1.Service{}, vips: map[netip.Addr]vip{},
		nodeByIP: map[netip.Addr]*network.Node{},
	}
	if s := m.Snapshot; s != nil {
		c.indexPods(s.Pods)
		c.indexServices(s.Services)
	}
	for _, n := range m.Nodes {
		if n.InternalIP.IsValid() {
			c.nodeByIP[n.InternalIP] = n
		}
	}
	return c
}

func (c *Checker) indexPods(pods []*corev1.Pod) {
	for _, p := range pods {
		c.pods[p.Namespace+"/"+p.Name] = p
		if p.Spec.HostNetwork || isFinished(p) {
			continue
		}
		if ip, err := netip.ParseAddr(p.Status.PodIP); err == nil {
			c.podsByIP[ip] = p
		}
	}
}

func (c *Checker) indexServices(services []*corev1.Service) {
	for _, s := range services {
		c.services[s.Namespace+"/"+s.Name] = s
		add := func(addr, kind string) {
			if ip, err := netip.ParseAddr(addr); err == nil {
				c.vips[ip] = vip{svc: s, kind: kind}
			}
		}
		add(s.Spec.ClusterIP, "ClusterIP")
		for _, ip := range s.Spec.ExternalIPs {
			add(ip, "ExternalIP")
		}
		for _, in := range s.Status.LoadBalancer.Ingress {
			add(in.IP, "LoadBalancerIngress")
		}
	}
}

// podsOf lists the pods of a namespace, sorted by name, that run and have
// an IP.
func (c *Checker) podsOf(namespace string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range c.pods {
		if p.Namespace == namespace && p.Status.PodIP != "" && !isFinished(p) {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func isFinished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// hasNetwork: a pod's sandbox keeps its address and network until its
// containers have stopped, so a terminating pod still sends (its preStop
// hook) and is reached at its IP; Services drop it earlier (their
// endpoints say so).
func hasNetwork(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning }

func isRunning(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil
}

// splitRef splits "kind/a/b" into kind and the rest's parts.
func splitRef(ref string) (kind string, parts []string) {
	kind, rest, ok := strings.Cut(ref, "/")
	if !ok {
		return "", nil
	}
	return kind, strings.Split(rest, "/")
}
