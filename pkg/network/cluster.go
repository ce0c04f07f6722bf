package network

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network/cni"
	"github.com/winkube/winkube/pkg/rules"
)

// Defaults of PLAN-1 (seed 004), used when the cluster does not say.
var (
	DefaultClusterCIDR  = netip.MustParsePrefix("10.244.0.0/16")
	DefaultServiceCIDR  = netip.MustParsePrefix("10.96.0.0/12")
	DefaultDNSServiceIP = netip.MustParseAddr("10.96.0.10")
)

// DefaultClusterDomain is the cluster's DNS domain.
const DefaultClusterDomain = "cluster.local"

// flannelConfigMap is the ConfigMap kube-flannel.yml keeps net-conf.json in.
const (
	flannelConfigMap = "kube-flannel-cfg"
	netConfKey       = "net-conf.json"
)

// buildCluster reads the cluster-wide settings; netConf is the parsed
// net-conf.json (ok false when there is none or it does not parse).
func buildCluster(s *Snapshot) (c Cluster, netConf cni.NetConf, ok bool) {
	c.ClusterDomain = DefaultClusterDomain
	netConf, ok = readNetConf(s, &c)
	c.ClusterCIDR = clusterCIDR(s, &c, netConf, ok)
	c.ServiceCIDR = serviceCIDR(s, &c)
	c.DNSServiceIP = dnsServiceIP(s, &c)
	if !ok {
		c.Flannel = flannelFromNodes(s.Nodes, c.ClusterCIDR)
	}
	return c, netConf, ok
}

// flannelFromNodes: without net-conf.json, the backend the nodes'
// flannel annotations name, else VXLAN; VXLAN as the Windows setup runs it
// (VNI 4096, port 4789) unless an annotation says another VNI.
func flannelFromNodes(nodes []*corev1.Node, network netip.Prefix) Flannel {
	f := Flannel{Network: network, Backend: cni.BackendVXLAN, VNI: cni.WindowsMinVNI, Port: cni.WindowsVXLANPort}
	for _, n := range nodes {
		switch n.Annotations[cni.AnnotationBackendType] {
		case cni.BackendHostGW:
			f.Backend, f.VNI, f.Port = cni.BackendHostGW, 0, 0
			return f
		case cni.BackendVXLAN:
			if d, err := cni.ParseBackendData(n.Annotations[cni.AnnotationBackendData]); err == nil && d.VNI != 0 {
				f.VNI = d.VNI
			}
			return f
		}
	}
	return f
}

// readNetConf finds net-conf.json in kube-flannel-cfg (kube-system, else
// the kube-flannel namespace newer manifests use).
func readNetConf(s *Snapshot, c *Cluster) (cni.NetConf, bool) {
	cm := findConfigMap(s.ConfigMaps, flannelConfigMap, kubeSystem, "kube-flannel")
	if cm == nil {
		return cni.NetConf{}, false
	}
	data, found := cm.Data[netConfKey]
	if !found {
		c.finding("PLAN-2", "ConfigMap %s/%s has no %s key, so flanneld cannot start", cm.Namespace, cm.Name, netConfKey)
		return cni.NetConf{}, false
	}
	nc, err := cni.ParseNetConf(data)
	if err != nil {
		c.finding("PLAN-2", "ConfigMap %s/%s: %v; flanneld cannot start", cm.Namespace, cm.Name, err)
		return cni.NetConf{}, false
	}
	c.Flannel = Flannel{Found: true, Network: nc.Network, Backend: nc.Backend.Type}
	if nc.Backend.Type == cni.BackendVXLAN {
		// The cluster's VXLAN is what the Linux flanneld speaks; Windows
		// nodes must match it (NET-2).
		c.Flannel.VNI = nc.Backend.EffectiveVNI("linux")
		c.Flannel.Port = nc.Backend.EffectivePort("linux")
		vxlanInterop(nc, c)
	}
	return nc, true
}

// vxlanInterop: Linux and Windows flanneld default differently; only
// VNI 4096 on port 4789, written out, works for both (NET-2).
func vxlanInterop(nc cni.NetConf, c *Cluster) {
	b := nc.Backend
	if b.VNI == 0 || b.Port == 0 {
		c.finding("NET-2", "net-conf.json leaves the VXLAN VNI or Port unset: Linux flanneld then uses VNI %d on port %d and Windows flanneld VNI %d on port %d, which do not interoperate; set \"VNI\": 4096 and \"Port\": 4789",
			b.EffectiveVNI("linux"), b.EffectivePort("linux"), b.EffectiveVNI("windows"), b.EffectivePort("windows"))
	}
}

func findConfigMap(cms []*corev1.ConfigMap, name string, namespaces ...string) *corev1.ConfigMap {
	for _, ns := range namespaces {
		for _, cm := range cms {
			if cm != nil && cm.Name == name && cm.Namespace == ns {
				return cm
			}
		}
	}
	return nil
}

// clusterCIDR: flannel's Network, else the nodes' pod CIDRs' common
// prefix, else the default.
func clusterCIDR(s *Snapshot, c *Cluster, nc cni.NetConf, ok bool) netip.Prefix {
	if ok {
		return nc.Network
	}
	if p, found := podCIDRSupernet(s.Nodes); found {
		c.finding("PLAN-1", "no flannel net-conf.json: cluster CIDR taken as %s, the range the nodes' pod CIDRs share", p)
		return p
	}
	c.finding("PLAN-1", "no flannel net-conf.json and no node pod CIDRs: cluster CIDR assumed to be the default %s", DefaultClusterCIDR)
	return DefaultClusterCIDR
}

// podCIDRSupernet is the longest prefix holding every node's IPv4 pod
// CIDR.
func podCIDRSupernet(nodes []*corev1.Node) (netip.Prefix, bool) {
	var out netip.Prefix
	for _, n := range nodes {
		p, ok := podCIDR(n)
		if !ok {
			continue
		}
		if !out.IsValid() {
			out = p
			continue
		}
		for out.Bits() > 0 && !out.Contains(p.Addr()) || out.Bits() > p.Bits() {
			out = netip.PrefixFrom(out.Addr(), out.Bits()-1).Masked()
		}
	}
	return out, out.IsValid()
}

// serviceCIDR: the ServiceCIDR objects' IPv4 range (the one named
// "kubernetes" first), else a /12 around the kubernetes Service's IP,
// else the default.
func serviceCIDR(s *Snapshot, c *Cluster) netip.Prefix {
	for _, want := range []bool{true, false} {
		for _, sc := range s.ServiceCIDRs {
			if sc == nil || (sc.Name == "kubernetes") != want {
				continue
			}
			for _, cidr := range sc.Spec.CIDRs {
				if p, err := netip.ParsePrefix(cidr); err == nil && p.Addr().Is4() {
					return p.Masked()
				}
			}
		}
	}
	if svc := findService(s.Services, "default", "kubernetes"); svc != nil {
		if ip, err := netip.ParseAddr(svc.Spec.ClusterIP); err == nil && ip.Is4() {
			p := netip.PrefixFrom(ip, DefaultServiceCIDR.Bits()).Masked()
			c.finding("PLAN-1", "no ServiceCIDR objects: service CIDR taken as %s around the kubernetes Service's %s", p, ip)
			return p
		}
	}
	c.finding("PLAN-1", "no ServiceCIDR objects and no kubernetes Service: service CIDR assumed to be the default %s", DefaultServiceCIDR)
	return DefaultServiceCIDR
}

// dnsServiceIP is kube-system/kube-dns's cluster IP, else the service
// CIDR's tenth address (kubeadm's choice).
func dnsServiceIP(s *Snapshot, c *Cluster) netip.Addr {
	if svc := findService(s.Services, kubeSystem, "kube-dns"); svc != nil {
		if ip, err := netip.ParseAddr(svc.Spec.ClusterIP); err == nil {
			return ip
		}
	}
	ip := c.ServiceCIDR.Addr()
	for range 10 {
		ip = ip.Next()
	}
	c.finding("PLAN-1", "no kube-system/kube-dns Service: DNS service IP assumed to be %s", ip)
	return ip
}

func findService(svcs []*corev1.Service, ns, name string) *corev1.Service {
	for _, s := range svcs {
		if s != nil && s.Namespace == ns && s.Name == name {
			return s
		}
	}
	return nil
}

func (c *Cluster) finding(rule, format string, args ...any) {
	c.Findings = append(c.Findings, rules.New(rule, "", fmt.Sprintf(format, args...)))
}
