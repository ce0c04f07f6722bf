package reach

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/network"
)

// The test cluster is winkube's default one, with the seeds' address
// spaces (PLAN-1): one Linux node, two Windows Server 2019 nodes and one
// 2022 node on flannel VXLAN (VNI 4096, port 4789), the web server of the
// scheduling guide on both 2019 nodes behind a NodePort Service, and a
// Windows and a Linux client.
type fixture struct{ s *network.Snapshot }

func newFixture() *fixture {
	f := &fixture{s: &network.Snapshot{K8sMinor: 36}}
	f.node("linux-1", "linux", "", "10.127.130.10", "10.244.0.0/24")
	f.node("win2019-1", "windows", "10.0.17763", "10.127.130.11", "10.244.1.0/24")
	f.node("win2019-2", "windows", "10.0.17763", "10.127.130.12", "10.244.2.0/24")
	f.node("win2022-1", "windows", "10.0.20348", "10.127.130.13", "10.244.3.0/24")
	f.flannel(`{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan", "VNI": 4096, "Port": 4789}}`)
	f.kubeProxy("--proxy-mode=kernelspace", "--hostname-override=$(NODE_NAME)", "--network-name=vxlan0", "--source-vip=$(SOURCE_VIP)")
	f.pod("default", "web-a", "win2019-1", "10.244.1.3", map[string]string{"app": "web"})
	f.pod("default", "web-b", "win2019-2", "10.244.2.3", map[string]string{"app": "web"})
	f.pod("default", "win-client", "win2022-1", "10.244.3.3", nil)
	f.pod("default", "linux-client", "linux-1", "10.244.0.3", nil)
	f.pod("kube-system", "coredns-1", "linux-1", "10.244.0.2", map[string]string{"k8s-app": "kube-dns"})
	f.service("default", "web", "10.96.10.10", corev1.ServiceTypeNodePort, 80, 80, 30080, "app", "web")
	f.service("kube-system", "kube-dns", "10.96.0.10", corev1.ServiceTypeClusterIP, 53, 53, 0, "k8s-app", "kube-dns")
	f.service("default", "kubernetes", "10.96.0.1", corev1.ServiceTypeClusterIP, 443, 6443, 0, "", "")
	// The apiserver endpoint is not a pod: the control plane's host address.
	f.s.EndpointSlices[len(f.s.EndpointSlices)-1].Endpoints = []discoveryv1.Endpoint{{
		Addresses: []string{"10.127.130.2"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)},
	}}
	return f
}

func (f *fixture) build() *Checker {
	m := network.Build(f.s)
	return New(m, ClusterDNS(f.s, m.Cluster.ClusterDomain))
}

func (f *fixture) node(name, os, build, ip, cidr string) {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelOSStable: os, corev1.LabelArchStable: "amd64"}},
		Spec:       corev1.NodeSpec{PodCIDR: cidr, PodCIDRs: []string{cidr}},
		Status:     corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}}},
	}
	if build != "" {
		n.Labels["node.kubernetes.io/windows-build"] = build
		n.Status.NodeInfo.KernelVersion = build + ".1"
	}
	n.Status.NodeInfo.OperatingSystem = os
	f.s.Nodes = append(f.s.Nodes, n)
}

func (f *fixture) flannel(netConf string) {
	f.s.ConfigMaps = append(f.s.ConfigMaps, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-flannel-cfg"},
		Data:       map[string]string{"net-conf.json": netConf},
	})
}

func (f *fixture) setFlannel(netConf string) {
	f.s.ConfigMaps = nil
	f.flannel(netConf)
}

// kubeProxy adds the Windows kube-proxy DaemonSet with these flags.
func (f *fixture) kubeProxy(args ...string) {
	f.s.DaemonSets = []*appsv1.DaemonSet{{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-proxy-windows"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			NodeSelector: map[string]string{corev1.LabelOSStable: "windows"},
			HostNetwork:  true,
			Containers: []corev1.Container{{
				Name: "kube-proxy", Image: "sigwindowstools/kube-proxy:v1.36.3-flannel-hostprocess",
				Command: []string{"kube-proxy.exe"}, Args: args,
				Env: []corev1.EnvVar{{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
			}},
		}}},
	}}
}

func (f *fixture) pod(ns, name, node, ip string, labels map[string]string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels, UID: types.UID(ns + "-" + name)},
		Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "x"}}},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}},
	}
	f.s.Pods = append(f.s.Pods, p)
	return p
}

// service adds a Service and, when it has a selector, the EndpointSlice
// the endpointslice controller would write for the pods it selects.
func (f *fixture) service(ns, name, ip string, typ corev1.ServiceType, port, target, nodePort int32, key, value string) *corev1.Service {
	s := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Type: typ, ClusterIP: ip, ClusterIPs: []string{ip},
			Ports: []corev1.ServicePort{{Port: port, TargetPort: intstr.FromInt32(target), NodePort: nodePort, Protocol: corev1.ProtocolTCP}}},
	}
	if key != "" {
		s.Spec.Selector = map[string]string{key: value}
	}
	f.s.Services = append(f.s.Services, s)
	f.slice(s, target)
	return s
}

func (f *fixture) slice(s *corev1.Service, target int32) {
	es := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name + "-abc", Labels: map[string]string{discoveryv1.LabelServiceName: s.Name}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Port: ptr.To(target), Protocol: ptr.To(corev1.ProtocolTCP), Name: ptr.To("")}},
	}
	for _, p := range f.s.Pods {
		if p.Namespace != s.Namespace || !selects(s, p) {
			continue
		}
		es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{p.Status.PodIP},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)},
			NodeName:   ptr.To(p.Spec.NodeName),
			TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: p.Namespace, Name: p.Name},
		})
	}
	f.s.EndpointSlices = append(f.s.EndpointSlices, es)
}

// check runs one request and fails the test on an input error.
func check(t *testing.T, c *Checker, source, target string, port int, proto string) *Result {
	t.Helper()
	res, err := c.Check(Request{Source: source, Target: target, Port: port, Protocol: proto})
	if err != nil {
		t.Fatalf("%s → %s: %v", source, target, err)
	}
	return res
}

// expect asserts the verdict and that every rule is among the result's.
func expect(t *testing.T, res *Result, reachable bool, rules ...string) {
	t.Helper()
	var text strings.Builder
	_ = res.WriteText(&text)
	if res.Reachable != reachable {
		t.Errorf("%s → %s: reachable = %t, want %t\n%s", res.Source, res.Target, res.Reachable, reachable, text.String())
	}
	for _, r := range rules {
		found := false
		for _, got := range res.Rules {
			found = found || got == r
		}
		if !found {
			t.Errorf("%s → %s: rules %v lack %s\n%s", res.Source, res.Target, res.Rules, r, text.String())
		}
	}
}
