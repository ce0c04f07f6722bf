package podnet

import (
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/winkube/winkube/pkg/emu/vnet"
)

// hostPort is one container port a pod exposes on its node's addresses
// (spec.containers[].ports[].hostPort), as the portmap CNI plugin's DNAT
// rules on Linux and HNS's port mappings on Windows forward it.
type hostPort struct {
	hostIP string // "" or 0.0.0.0: every address of the node
	proto  string // tcp, udp
	port   int
	target int32 // the container port
}

// podPorts are the host ports of one pod.
type podPorts struct {
	namespace, name, node, ip string
	ports                     []hostPort
}

// HostPort implements vnet.HostPorter: a connection to a node's address,
// or from the node's own network namespace to its loopback, on a port a
// pod of that node exposes as a hostPort goes to that pod. The mapping
// matches the protocol, the port and the host IP (an empty one or
// 0.0.0.0 matches every address of the node). Most clusters have no host
// ports, and then nothing is looked up.
func (r *Router) HostPort(src vnet.Host, proto string, dst netip.AddrPort) (netip.AddrPort, bool) {
	r.hpMu.Lock()
	pods := make([]podPorts, 0, len(r.hostPorts))
	for _, pp := range r.hostPorts {
		pods = append(pods, pp)
	}
	r.hpMu.Unlock()
	if len(pods) == 0 {
		return netip.AddrPort{}, false
	}
	node := ""
	if dst.Addr().IsLoopback() {
		name, ok := strings.CutPrefix(src.Scope, "node/")
		if !ok {
			return netip.AddrPort{}, false // a pod's loopback is its own
		}
		node = name
	} else if node = r.nodeAt(dst.Addr()); node == "" {
		return netip.AddrPort{}, false
	}
	for _, pp := range pods {
		if pp.node != node {
			continue
		}
		for _, hp := range pp.ports {
			if hp.proto != proto || hp.port != int(dst.Port()) ||
				(hp.hostIP != "" && hp.hostIP != "0.0.0.0" && hp.hostIP != dst.Addr().String()) {
				continue
			}
			if ip := r.ipOf(pp); ip.IsValid() {
				return netip.AddrPortFrom(ip, uint16(hp.target)), true
			}
		}
	}
	return netip.AddrPort{}, false
}

// nodeAt is the name of the node with address ip; "" when none has it.
func (r *Router) nodeAt(ip netip.Addr) string {
	if r.nodes == nil {
		return ""
	}
	nodes, _ := r.nodes.List(labels.Everything())
	for _, n := range nodes {
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP && a.Address == ip.String() {
				return n.Name
			}
		}
	}
	return ""
}

// ipOf is the pod's address: its status's, or the one its node gave it
// before the status said so.
func (r *Router) ipOf(pp podPorts) netip.Addr {
	if ip, err := netip.ParseAddr(pp.ip); err == nil {
		return ip
	}
	if v, ok := r.running.Load(pp.namespace + "/" + pp.name); ok {
		if ip, ok := v.(netip.Addr); ok {
			return ip
		}
	}
	return netip.Addr{}
}

// hostPortEvents keeps r.hostPorts current from the pod informer.
func (r *Router) hostPortEvents() cache.ResourceEventHandler {
	set := func(obj any) {
		p, ok := obj.(*corev1.Pod)
		if !ok {
			return
		}
		pp := portsOf(p)
		key := p.Namespace + "/" + p.Name
		r.hpMu.Lock()
		defer r.hpMu.Unlock()
		if len(pp.ports) == 0 {
			delete(r.hostPorts, key)
			return
		}
		if r.hostPorts == nil {
			r.hostPorts = map[string]podPorts{}
		}
		r.hostPorts[key] = pp
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    set,
		UpdateFunc: func(_, obj any) { set(obj) },
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if p, ok := obj.(*corev1.Pod); ok {
				r.hpMu.Lock()
				delete(r.hostPorts, p.Namespace+"/"+p.Name)
				r.hpMu.Unlock()
			}
		},
	}
}

// portsOf is a pod's host ports; none for a pod that has not landed, is
// going, or shares its node's network (its ports are the node's own).
func portsOf(p *corev1.Pod) podPorts {
	pp := podPorts{namespace: p.Namespace, name: p.Name, node: p.Spec.NodeName, ip: p.Status.PodIP}
	if p.Spec.NodeName == "" || p.Spec.HostNetwork || p.DeletionTimestamp != nil {
		return pp
	}
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.HostPort <= 0 {
				continue
			}
			proto := strings.ToLower(string(cp.Protocol))
			if proto == "" {
				proto = "tcp"
			}
			pp.ports = append(pp.ports, hostPort{hostIP: cp.HostIP, proto: proto, port: int(cp.HostPort), target: cp.ContainerPort})
		}
	}
	return pp
}
