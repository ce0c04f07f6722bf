package network

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/rules"
)

// The seeds' values (seed 004): cluster 10.244.0.0/16, services
// 10.96.0.0/12, DNS 10.96.0.10, VXLAN VNI 4096 on port 4789.
const (
	seedNetConf = `{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan", "VNI": 4096, "Port": 4789}}`
	hostGWConf  = `{"Network": "10.244.0.0/16", "Backend": {"Type": "host-gw"}}`
	build2019   = "10.0.17763"
	build2022   = "10.0.20348"
)

func linuxNode(name, ip, cidr string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/os": "linux"}},
		Spec:       corev1.NodeSpec{PodCIDR: cidr, PodCIDRs: []string{cidr}},
		Status:     corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}}},
	}
}

func windowsNode(name, ip, cidr, build string) *corev1.Node {
	n := linuxNode(name, ip, cidr)
	n.Labels = map[string]string{"kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": build}
	n.Spec.Taints = []corev1.Taint{{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
	return n
}

func flannelCM(netConf string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-flannel-cfg", Namespace: "kube-system"},
		Data:       map[string]string{"net-conf.json": netConf},
	}
}

// proxyDS is a Windows kube-proxy DaemonSet running kube-proxy with args.
func proxyDS(args ...string) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-proxy-windows", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "kube-proxy-windows"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"k8s-app": "kube-proxy-windows"}},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"kubernetes.io/os": "windows"},
					Tolerations:  []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					HostNetwork:  true,
					Containers: []corev1.Container{{
						Name: "kube-proxy", Image: "registry.k8s.io/kube-proxy:v1.36.3",
						Command: []string{"kube-proxy.exe"}, Args: args,
						Env: []corev1.EnvVar{{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
					}},
				},
			},
		},
	}
}

// seedProxyArgs: overlay kube-proxy as the seeds run it.
var seedProxyArgs = []string{
	"--proxy-mode=kernelspace", "--network-name=vxlan0", "--hostname-override=$(NODE_NAME)",
	"--feature-gates=WinOverlay=true", "--source-vip=$(SOURCE_VIP)",
}

func pod(ns, name, node, ip string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels, UID: types.UID("uid-" + name)},
		Spec:       corev1.PodSpec{NodeName: node},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip},
	}
}

func service(ns, name, clusterIP string, typ corev1.ServiceType, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Type: typ, ClusterIP: clusterIP, ClusterIPs: []string{clusterIP},
			Selector: map[string]string{"app": name}, Ports: ports},
	}
}

func tcpPort(name string, port, target, nodePort int32) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Protocol: corev1.ProtocolTCP, Port: port, TargetPort: intstr.FromInt32(target), NodePort: nodePort}
}

// endpoint is one backend in a slice: IP, node, ready.
type endpoint struct {
	ip, node string
	ready    bool
}

func slice(ns, svc, name string, port int32, portName string, eps ...endpoint) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To(portName), Port: ptr.To(port), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
	for _, e := range eps {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{
			Addresses: []string{e.ip}, NodeName: ptr.To(e.node),
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(e.ready)},
		})
	}
	return s
}

// seedCluster is a seed-shaped cluster: a Linux node, a Windows Server
// 2019 and a 2022 node, flannel VXLAN 4096/4789, the Windows kube-proxy,
// kube-dns, and the win-webserver Service with a pod on each Windows node.
func seedCluster() *Snapshot {
	web := map[string]string{"app": "win-webserver"}
	return &Snapshot{
		K8sMinor: 36,
		Nodes: []*corev1.Node{
			linuxNode("linux-1", "192.168.1.10", "10.244.0.0/24"),
			windowsNode("win2019-1", "192.168.1.20", "10.244.1.0/24", build2019),
			windowsNode("win2022-1", "192.168.1.30", "10.244.2.0/24", build2022),
		},
		Pods: []*corev1.Pod{
			pod("default", "web-a", "win2019-1", "10.244.1.5", web),
			pod("default", "web-b", "win2022-1", "10.244.2.7", web),
			pod("kube-system", "coredns-1", "linux-1", "10.244.0.3", map[string]string{"k8s-app": "kube-dns"}),
		},
		Services: []*corev1.Service{
			service("default", "kubernetes", "10.96.0.1", corev1.ServiceTypeClusterIP, tcpPort("https", 443, 6443, 0)),
			service("kube-system", "kube-dns", "10.96.0.10", corev1.ServiceTypeClusterIP, corev1.ServicePort{Name: "dns", Protocol: corev1.ProtocolUDP, Port: 53, TargetPort: intstr.FromInt32(53)}),
			service("default", "win-webserver", "10.96.100.1", corev1.ServiceTypeNodePort, tcpPort("http", 80, 80, 30080)),
		},
		EndpointSlices: []*discoveryv1.EndpointSlice{
			slice("default", "win-webserver", "win-webserver-abc", 80, "http",
				endpoint{"10.244.1.5", "win2019-1", true}, endpoint{"10.244.2.7", "win2022-1", true}),
		},
		ConfigMaps: []*corev1.ConfigMap{flannelCM(seedNetConf)},
		DaemonSets: []*appsv1.DaemonSet{proxyDS(seedProxyArgs...)},
	}
}

func findingRules(fs []rules.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule)
	}
	return out
}

func hasRule(fs []rules.Finding, rule string) bool {
	for _, f := range fs {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

var _ = fmt.Sprint
