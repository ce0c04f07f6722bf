package network

import (
	"fmt"
	"net/netip"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network/cni"
	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

// builder carries what every node's build needs.
type builder struct {
	s       *Snapshot
	cluster *Cluster
	netConf cni.NetConf
	hasConf bool
	// confBroken: kube-flannel-cfg exists but flanneld cannot use it.
	confBroken bool
	proxies    []proxyDaemon
	podsOn     map[string][]*corev1.Pod // node name → pods, sorted
	nodes      []*corev1.Node           // sorted by name
}

// Build computes the network model of a snapshot. It never fails: what
// the real components would refuse becomes a Finding.
func Build(s *Snapshot) *Model {
	if s == nil {
		s = &Snapshot{}
	}
	c, nc, ok := buildCluster(s)
	b := &builder{s: s, cluster: &c, netConf: nc, hasConf: ok, proxies: windowsProxies(s.DaemonSets)}
	b.confBroken = !ok && findConfigMap(s.ConfigMaps, flannelConfigMap, kubeSystem, "kube-flannel") != nil
	b.index()
	m := &Model{Cluster: c, Snapshot: s, Nodes: []*Node{}}
	for _, n := range b.nodes {
		m.Nodes = append(m.Nodes, b.node(n))
	}
	m.Cluster = *b.cluster
	return m
}

// index sorts the nodes and groups the pods by node.
func (b *builder) index() {
	b.nodes = append([]*corev1.Node(nil), b.s.Nodes...)
	sort.Slice(b.nodes, func(i, j int) bool { return b.nodes[i].Name < b.nodes[j].Name })
	b.podsOn = map[string][]*corev1.Pod{}
	for _, p := range b.s.Pods {
		if p != nil && p.Spec.NodeName != "" {
			b.podsOn[p.Spec.NodeName] = append(b.podsOn[p.Spec.NodeName], p)
		}
	}
	for _, pods := range b.podsOn {
		sort.Slice(pods, func(i, j int) bool {
			return pods[i].Namespace+"/"+pods[i].Name < pods[j].Namespace+"/"+pods[j].Name
		})
	}
}

// node builds one node: common settings, then the OS's part.
func (b *builder) node(n *corev1.Node) *Node {
	out := &Node{Name: n.Name, OS: nodeOS(n), InternalIP: internalIP(n)}
	if p, ok := podCIDR(n); ok {
		out.PodCIDR = p
	}
	if out.OS == "windows" {
		b.windowsNode(n, out)
	} else {
		b.linuxNode(n, out)
	}
	return out
}

// linuxNode: flanneld's files and annotations; the rest of a Linux node's
// behaviour (iptables, the full DNS search list) is the checker's.
func (b *builder) linuxNode(n *corev1.Node, out *Node) {
	if !b.hasConf || !out.PodCIDR.IsValid() {
		return
	}
	bt := b.netConf.Backend
	out.SubnetEnv = cni.NewSubnetEnv(b.cluster.ClusterCIDR, out.PodCIDR, bt.Type, "linux").String()
	out.FlannelAnnotations = cni.FlannelAnnotations(bt.Type, bt.EffectiveVNI("linux"), out.InternalIP.String(), vtepMAC(n))
}

// nodeOS is the node's OS, from windows.HostOf.
func nodeOS(n *corev1.Node) string { return windows.HostOf(n).OS }

// internalIP is the node's address on the pod network, from
// windows.HostOf: its emulated address when its kubelet serves on a real
// one (`winkube nodes --kubelet-address`), else its InternalIP.
func internalIP(n *corev1.Node) netip.Addr { return windows.HostOf(n).InternalIP }

// podCIDR is the node's IPv4 pod CIDR.
func podCIDR(n *corev1.Node) (netip.Prefix, bool) {
	list := n.Spec.PodCIDRs
	if len(list) == 0 && n.Spec.PodCIDR != "" {
		list = []string{n.Spec.PodCIDR}
	}
	for _, s := range list {
		if p, err := netip.ParsePrefix(s); err == nil && p.Addr().Is4() {
			return p.Masked(), true
		}
	}
	return netip.Prefix{}, false
}

// nodeBuild is the Windows build windows.HostOf reads (the windows-build
// label, else the kernel version); an error when neither names one.
func nodeBuild(n *corev1.Node) (windows.Build, error) {
	if b := windows.HostOf(n).Build; !b.IsZero() {
		return b, nil
	}
	return windows.Build{}, fmt.Errorf("node %s has neither a readable %s label nor a kernel version", n.Name, windows.LabelWindowsBuild)
}

func (n *Node) finding(rule, format string, args ...any) {
	n.add(rules.New(rule, "", fmt.Sprintf(format, args...)))
}

// findingCase is a finding in one of the rule's cases (rules.Case).
func (n *Node) findingCase(rule, kase, format string, args ...any) {
	n.add(rules.New(rule, kase, fmt.Sprintf(format, args...)))
}

func (n *Node) add(f rules.Finding) {
	n.Findings = append(n.Findings, f)
}
