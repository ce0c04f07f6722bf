package network

import (
	"encoding/json"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/network/hns"
)

// rule: PLAN-1 — the seed's address plan comes from the cluster's objects.
func TestClusterSettings(t *testing.T) {
	c := Build(seedCluster()).Cluster
	if c.ClusterCIDR.String() != "10.244.0.0/16" || c.ServiceCIDR.String() != "10.96.0.0/12" || c.DNSServiceIP.String() != "10.96.0.10" || c.ClusterDomain != "cluster.local" {
		t.Errorf("cluster %+v", c)
	}
	if f := c.Flannel; !f.Found || f.Backend != "vxlan" || f.VNI != 4096 || f.Port != 4789 {
		t.Errorf("flannel %+v, want vxlan 4096/4789 from kube-flannel-cfg", f)
	}
	s := seedCluster()
	s.ServiceCIDRs = []*networkingv1.ServiceCIDR{{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes"}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.100.0.0/16"}}}}
	if got := Build(s).Cluster.ServiceCIDR.String(); got != "10.100.0.0/16" {
		t.Errorf("service CIDR from the ServiceCIDR object: %s", got)
	}
}

// rule: PLAN-1, PLAN-2 — without kube-flannel-cfg the cluster CIDR is the
// nodes' pod CIDRs' common range, and VXLAN 4096 is assumed, with findings.
func TestNoFlannelConfig(t *testing.T) {
	s := seedCluster()
	s.ConfigMaps = nil
	m := Build(s)
	if got := m.Cluster.ClusterCIDR.String(); got != "10.244.0.0/22" {
		t.Errorf("cluster CIDR %s, want the pod CIDRs' common 10.244.0.0/22", got)
	}
	if f := m.Cluster.Flannel; f.Found || f.VNI != 4096 || f.Port != 4789 || !hasRule(m.Cluster.Findings, "PLAN-1") {
		t.Errorf("flannel %+v findings %v", f, m.Cluster.Findings)
	}
	if n := m.Node("win2019-1"); n.Mode != "overlay" || !hasRule(n.Findings, "PLAN-2") {
		t.Errorf("node mode %s findings %v, want overlay with a PLAN-2 finding", n.Mode, n.Findings)
	}
	s.Nodes[1].Annotations = map[string]string{"flannel.alpha.coreos.com/backend-type": "host-gw"}
	if n := Build(s).Node("win2019-1"); n.Mode != "l2bridge" {
		t.Errorf("backend-type host-gw annotation: mode %s, want l2bridge", n.Mode)
	}
}

// rule: NET-2, NET-5, NET-6, NET-8, KP-2 — an overlay node as the seed
// sets it up: network vxlan0 with VSID 4096, pod endpoint MAC 0E-2A + its
// octets, OutBoundNAT excepting the cluster and service CIDRs, source VIP
// .2, subnet.env with the subnet's first address.
func TestOverlayNode(t *testing.T) {
	n := Build(seedCluster()).Node("win2019-1")
	net := n.Network()
	if net == nil || net.Name != "vxlan0" || net.Type != hns.TypeOverlay || net.ManagementIP != "192.168.1.20" {
		t.Fatalf("network %+v", net)
	}
	sub := net.Subnets[0]
	if sub.AddressPrefix != "10.244.1.0/24" || sub.GatewayAddress != "10.244.1.1" || sub.Policies[0].Type != hns.PolicyVSID || sub.Policies[0].VSID != 4096 {
		t.Errorf("subnet %+v", sub)
	}
	pod := n.Endpoint(netip.MustParseAddr("10.244.1.5"))
	if pod == nil || pod.MacAddress != "0E-2A-0A-F4-01-05" || pod.GatewayAddress != "10.244.1.1" || pod.Pod != "default/web-a" {
		t.Fatalf("pod endpoint %+v", pod)
	}
	if nat := pod.Policies[0]; nat.Type != hns.PolicyOutBoundNAT || !reflect.DeepEqual(nat.ExceptionList, []string{"10.244.0.0/16", "10.96.0.0/12"}) {
		t.Errorf("OutBoundNAT %+v", nat)
	}
	if n.Proxy.SourceVIP.String() != "10.244.1.2" {
		t.Errorf("source VIP %s, want the reserved 10.244.1.2", n.Proxy.SourceVIP)
	}
	if host := n.Endpoint(netip.MustParseAddr("10.244.1.2")); host == nil || !host.Host {
		t.Errorf("source VIP endpoint %+v", host)
	}
	if !strings.Contains(n.SubnetEnv, "FLANNEL_SUBNET=10.244.1.1/24\n") || !strings.Contains(n.SubnetEnv, "FLANNEL_NETWORK=10.244.0.0/16\n") {
		t.Errorf("subnet.env %q", n.SubnetEnv)
	}
	if got := n.FlannelAnnotations["flannel.alpha.coreos.com/backend-data"]; !strings.HasPrefix(got, `{"VNI":4096,"VtepMAC":`) {
		t.Errorf("backend-data %s", got)
	}
	if !strings.Contains(n.CNIConfig, `"endpointMacPrefix": "0E-2A"`) || !strings.Contains(n.CNIConfig, `"name": "vxlan0"`) {
		t.Errorf("CNI config %s", n.CNIConfig)
	}
}

// rule: NET-3, NET-4, NET-6 — host-gw: L2Bridge network cbr0, gateway .1,
// host endpoint .2 which is the pods' gateway, and the management subnet
// in the ExceptionList.
func TestL2BridgeNode(t *testing.T) {
	s := seedCluster()
	s.ConfigMaps = []*corev1.ConfigMap{flannelCM(hostGWConf)}
	s.DaemonSets = []*appsv1.DaemonSet{proxyDS("--proxy-mode=kernelspace", "--network-name=cbr0", "--hostname-override=$(NODE_NAME)")}
	n := Build(s).Node("win2019-1")
	net := n.Network()
	if net == nil || net.Name != "cbr0" || net.Type != hns.TypeL2Bridge || net.Subnets[0].GatewayAddress != "10.244.1.1" {
		t.Fatalf("network %+v", net)
	}
	host := n.Endpoint(netip.MustParseAddr("10.244.1.2"))
	if host == nil || !host.Host || host.Name != "cbr0_ep" {
		t.Errorf("host endpoint %+v", host)
	}
	pod := n.Endpoint(netip.MustParseAddr("10.244.1.5"))
	if pod == nil || pod.GatewayAddress != "10.244.1.2" {
		t.Fatalf("pod endpoint %+v, want gateway 10.244.1.2", pod)
	}
	if got := pod.Policies[0].ExceptionList; !slices.Contains(got, "192.168.1.0/24") {
		t.Errorf("ExceptionList %v, want the management subnet", got)
	}
	if !n.Proxy.Running || len(n.HNS.LoadBalancers) == 0 || n.HNS.LoadBalancers[0].SourceVIP != "" {
		t.Errorf("proxy %+v load balancers %+v", n.Proxy, n.HNS.LoadBalancers)
	}
}

// rule: NET-2 — a VNI Windows refuses: flanneld exits on the Windows
// nodes, which get no HNS network and no running kube-proxy.
func TestVNIRefusedOnWindows(t *testing.T) {
	s := seedCluster()
	s.ConfigMaps = []*corev1.ConfigMap{flannelCM(`{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan", "VNI": 1, "Port": 8472}}`)}
	m := Build(s)
	n := m.Node("win2019-1")
	if !hasRule(n.Findings, "NET-2") || n.Network() != nil || n.Proxy.Running || n.SubnetEnv != "" {
		t.Errorf("Windows node: findings %v network %+v proxy %+v", n.Findings, n.Network(), n.Proxy)
	}
	if l := m.Node("linux-1"); hasRule(l.Findings, "NET-2") || l.SubnetEnv == "" {
		t.Errorf("Linux node: findings %v subnet.env %q", l.Findings, l.SubnetEnv)
	}
}

// rule: KP-1 — no --network-name and no KUBE_NETWORK: kube-proxy exits; a
// name HNS does not have: it waits forever. Either way no load balancers.
func TestNetworkNameRequired(t *testing.T) {
	for name, args := range map[string][]string{
		"missing": {"--hostname-override=$(NODE_NAME)", "--feature-gates=WinOverlay=true", "--source-vip=10.244.1.2"},
		"wrong":   {"--network-name=cbr0", "--hostname-override=$(NODE_NAME)", "--source-vip=10.244.1.2"},
	} {
		s := seedCluster()
		s.DaemonSets = []*appsv1.DaemonSet{proxyDS(args...)}
		n := Build(s).Node("win2019-1")
		if n.Proxy.Running || !hasRule(n.Findings, "KP-1") || len(n.HNS.LoadBalancers) != 0 {
			t.Errorf("%s: proxy %+v findings %v", name, n.Proxy, n.Findings)
		}
	}
	s := seedCluster()
	ds := proxyDS("--hostname-override=$(NODE_NAME)", "--source-vip=$(SOURCE_VIP)")
	ds.Spec.Template.Spec.Containers[0].Env = append(ds.Spec.Template.Spec.Containers[0].Env, corev1.EnvVar{Name: "KUBE_NETWORK", Value: "vxlan0"})
	s.DaemonSets = []*appsv1.DaemonSet{ds}
	if n := Build(s).Node("win2019-1"); !n.Proxy.Running || n.Proxy.NetworkName != "vxlan0" {
		t.Errorf("KUBE_NETWORK: proxy %+v findings %v", n.Proxy, n.Findings)
	}
}

// rule: KP-2 — --enable-dsr needs WinDSR: alpha (off) up to 1.32, beta
// (on) from 1.33; overlay needs --source-vip; WinOverlay is locked on from
// 1.34.
func TestFeatureGates(t *testing.T) {
	for _, tc := range []struct {
		name    string
		minor   int
		args    []string
		running bool
	}{
		{"dsr without gate on 1.32", 32, []string{"--enable-dsr"}, false},
		{"dsr with gate on 1.32", 32, []string{"--enable-dsr", "--feature-gates=WinDSR=true,WinOverlay=true"}, true},
		{"dsr beta on 1.33", 33, []string{"--enable-dsr=true"}, true},
		{"overlay gate off on 1.33", 33, []string{"--feature-gates=WinOverlay=false"}, false},
		{"overlay gate locked on 1.34", 34, []string{"--feature-gates=WinOverlay=false"}, false},
		{"overlay alpha on 1.19", 19, []string{}, false},
		{"overlay beta on 1.20", 20, []string{}, true},
	} {
		s := seedCluster()
		s.K8sMinor = tc.minor
		args := append([]string{"--network-name=vxlan0", "--hostname-override=$(NODE_NAME)", "--source-vip=10.244.1.2"}, tc.args...)
		s.DaemonSets = []*appsv1.DaemonSet{proxyDS(args...)}
		n := Build(s).Node("win2019-1")
		if n.Proxy.Running != tc.running || (!tc.running && !hasRule(n.Findings, "KP-2")) {
			t.Errorf("%s: running %v findings %v, want running %v", tc.name, n.Proxy.Running, n.Findings, tc.running)
		}
		if tc.running && n.Proxy.EnableDSR {
			if lb := n.HNS.LoadBalancers[0]; !lb.DSR {
				t.Errorf("%s: cluster IP load balancer without DSR: %+v", tc.name, lb)
			}
		}
	}
	s := seedCluster()
	s.DaemonSets = []*appsv1.DaemonSet{proxyDS("--network-name=vxlan0", "--hostname-override=$(NODE_NAME)")}
	if n := Build(s).Node("win2019-1"); n.Proxy.Running || !hasRule(n.Findings, "KP-2") {
		t.Errorf("overlay without --source-vip: proxy %+v findings %v", n.Proxy, n.Findings)
	}
}

// rule: KP-8 — a hostname override other than the node name: the node's
// pod endpoints are deleted and no load balancer is usable.
func TestHostnameOverrideMismatch(t *testing.T) {
	s := seedCluster()
	s.DaemonSets = []*appsv1.DaemonSet{proxyDS("--network-name=vxlan0", "--hostname-override=WIN2019-1.example", "--source-vip=10.244.1.2")}
	n := Build(s).Node("win2019-1")
	if !hasRule(n.Findings, "KP-8") || n.Endpoint(netip.MustParseAddr("10.244.1.5")) != nil || len(n.HNS.LoadBalancers) != 0 {
		t.Errorf("findings %v endpoints %+v load balancers %d", n.Findings, n.HNS.Endpoints, len(n.HNS.LoadBalancers))
	}
}

// rule: TS-1 — no Windows kube-proxy DaemonSet: nothing programs load
// balancers; a Linux-only kube-proxy DaemonSet does not count.
func TestNoWindowsKubeProxy(t *testing.T) {
	s := seedCluster()
	linuxDS := proxyDS("--proxy-mode=iptables")
	linuxDS.Spec.Template.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
	s.DaemonSets = []*appsv1.DaemonSet{linuxDS}
	n := Build(s).Node("win2019-1")
	if n.Proxy.Found || n.Proxy.Running || !hasRule(n.Findings, "TS-1") || len(n.HNS.LoadBalancers) != 0 {
		t.Errorf("proxy %+v findings %v", n.Proxy, n.Findings)
	}
	if n.Endpoint(netip.MustParseAddr("10.244.1.5")) == nil {
		t.Error("the pod's endpoint comes from the CNI, not kube-proxy: want it")
	}
}

// The sig-windows-tools HostProcess kube-proxy has no command: its image's
// script passes the node name, WinOverlay and a reserved source VIP, and
// KUBE_NETWORK names flanneld's default network flannel.4096.
func TestSigWindowsToolsKubeProxy(t *testing.T) {
	s := seedCluster()
	ds := proxyDS()
	c := &ds.Spec.Template.Spec.Containers[0]
	c.Command, c.Image = nil, "sigwindowstools/kube-proxy:v1.36.3-flannel-hostprocess"
	c.Env = append(c.Env, corev1.EnvVar{Name: "KUBE_NETWORK", Value: "flannel.4096"})
	s.DaemonSets = []*appsv1.DaemonSet{ds}
	n := Build(s).Node("win2022-1")
	if !n.Proxy.Running || n.Proxy.HostnameOverride != "win2022-1" || n.Proxy.SourceVIP.String() != "10.244.2.2" || n.Network().Name != "flannel.4096" {
		t.Errorf("proxy %+v network %+v findings %v", n.Proxy, n.Network(), n.Findings)
	}
}

// The build comes from the kernel version when the label is missing.
func TestBuildFromKernelVersion(t *testing.T) {
	s := seedCluster()
	delete(s.Nodes[2].Labels, "node.kubernetes.io/windows-build")
	s.Nodes[2].Status.NodeInfo.KernelVersion = "10.0.20348.2227"
	if n := Build(s).Node("win2022-1"); n.Build.Build != 20348 {
		t.Errorf("build %+v", n.Build)
	}
}

// Build is deterministic: the same objects in any order give the same
// model.
func TestBuildIsDeterministic(t *testing.T) {
	a, _ := json.Marshal(Build(seedCluster()))
	s := seedCluster()
	slices.Reverse(s.Nodes)
	slices.Reverse(s.Pods)
	slices.Reverse(s.Services)
	b, _ := json.Marshal(Build(s))
	if string(a) != string(b) {
		t.Errorf("models differ:\n%s\n%s", a, b)
	}
}

func TestLookups(t *testing.T) {
	m := Build(seedCluster())
	n := m.Node("win2022-1")
	if n == nil || m.Node("nope") != nil || m.NodeByIP(netip.MustParseAddr("192.168.1.30")) != n || m.NodeForPodIP(netip.MustParseAddr("10.244.2.7")) != n {
		t.Fatal("node lookups")
	}
	lb := n.LoadBalancer(netip.MustParseAddr("10.96.100.1"), 80, hns.ProtocolTCP)
	if lb == nil || lb.Kind != hns.KindClusterIP || len(n.Backends(lb)) != 2 {
		t.Errorf("cluster IP load balancer %+v", lb)
	}
	if np := n.NodePortLoadBalancer(30080, hns.ProtocolTCP); np == nil || n.EndpointByID(np.Endpoints[0]) == nil {
		t.Errorf("node port load balancer %+v", np)
	}
}

// With --config kube-proxy reads its KubeProxyConfiguration and ignores
// the other flags but --hostname-override, which it lower-cases (KP-8).
func TestKubeProxyConfigFile(t *testing.T) {
	s := seedCluster()
	ds := proxyDS("--config=/var/lib/kube-proxy/config.conf", "--network-name=ignored", "--hostname-override=WIN2019-1")
	spec := &ds.Spec.Template.Spec
	spec.Volumes = []corev1.Volume{{Name: "kube-proxy", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-proxy-windows"}}}}}
	spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "kube-proxy", MountPath: "/var/lib/kube-proxy"}}
	s.DaemonSets = []*appsv1.DaemonSet{ds}
	s.ConfigMaps = append(s.ConfigMaps, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-proxy-windows", Namespace: "kube-system"},
		Data: map[string]string{"config.conf": `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: kernelspace
featureGates:
  WinOverlay: true
winkernel:
  networkName: vxlan0
  sourceVip: 10.244.1.2
`},
	})
	n := Build(s).Node("win2019-1")
	if !n.Proxy.Running || n.Proxy.NetworkName != "vxlan0" || n.Proxy.HostnameOverride != "win2019-1" || hasRule(n.Findings, "KP-8") {
		t.Errorf("proxy %+v findings %v", n.Proxy, n.Findings)
	}
}

// The VTEP MAC a node already published (flanneld's backend-data) is the
// overlay network's DR MAC and what other nodes route to.
func TestPublishedVtepMAC(t *testing.T) {
	s := seedCluster()
	s.Nodes[1].Annotations = map[string]string{"flannel.alpha.coreos.com/backend-data": `{"VNI":4096,"VtepMAC":"0a:11:22:33:44:55"}`}
	m := Build(s)
	if got := m.Node("win2019-1").Network().DrMacAddress; got != "0A-11-22-33-44-55" {
		t.Errorf("DR MAC %s", got)
	}
	if got := m.Node("win2019-1").FlannelAnnotations["flannel.alpha.coreos.com/backend-data"]; got != `{"VNI":4096,"VtepMAC":"0a:11:22:33:44:55"}` {
		t.Errorf("backend-data %s", got)
	}
	for _, p := range m.Node("win2022-1").Network().Policies {
		if p.DestinationPrefix == "10.244.1.0/24" && p.DistributedRouterMacAddress != "0A-11-22-33-44-55" {
			t.Errorf("remote subnet route %+v", p)
		}
	}
}
