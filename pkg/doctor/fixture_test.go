package doctor

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/network"
)

// The seeds' values (seed 004): cluster 10.244.0.0/16, services
// 10.96.0.0/12, DNS 10.96.0.10, VXLAN VNI 4096 on port 4789.
const (
	seedNetConf = `{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan", "VNI": 4096, "Port": 4789}}`
	build2019   = "10.0.17763"
	build2022   = "10.0.20348"
)

var now = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// seedProxyArgs: overlay kube-proxy as the seeds run it.
var seedProxyArgs = []string{
	"--proxy-mode=kernelspace", "--network-name=vxlan0", "--hostname-override=$(NODE_NAME)",
	"--feature-gates=WinOverlay=true", "--source-vip=$(SOURCE_VIP)",
}

func node(name, os, ip, cidr, build string) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/os": os, "kubernetes.io/arch": "amd64"},
			Annotations: map[string]string{
				"flannel.alpha.coreos.com/backend-type": "vxlan",
				"flannel.alpha.coreos.com/backend-data": `{"VNI":4096,"VtepMAC":"0e:2a:0a:f4:01:02"}`,
				"flannel.alpha.coreos.com/public-ip":    ip,
			}},
		Spec: corev1.NodeSpec{PodCIDR: cidr, PodCIDRs: []string{cidr}},
		Status: corev1.NodeStatus{
			Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}},
			NodeInfo:   corev1.NodeSystemInfo{OperatingSystem: os, ContainerRuntimeVersion: "containerd://1.7.20"},
		},
	}
	if os == "windows" {
		n.Labels["node.kubernetes.io/windows-build"] = build
		n.Spec.Taints = []corev1.Taint{{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
	}
	return n
}

func lease(name string, renewed time.Time) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: leaseNamespace},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(name), LeaseDurationSeconds: ptr.To[int32](40),
			RenewTime: &metav1.MicroTime{Time: renewed}},
	}
}

func daemonSet(name string, spec corev1.PodSpec) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"},
		Spec:       appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: spec}},
	}
}

// proxyDS is the Windows kube-proxy DaemonSet with args.
func proxyDS(args ...string) *appsv1.DaemonSet {
	return daemonSet("kube-proxy-windows", corev1.PodSpec{
		NodeSelector: map[string]string{"kubernetes.io/os": "windows"},
		Tolerations:  []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
		HostNetwork:  true,
		Containers: []corev1.Container{{
			Name: "kube-proxy", Image: "docker.io/sigwindowstools/kube-proxy:v1.36.3-flannel-hostprocess", Args: args,
			Env: []corev1.EnvVar{{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
		}},
	})
}

func service(ns, name, ip string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{ClusterIP: ip, Ports: []corev1.ServicePort{{Port: 80}}}}
}

// runningPod is a ready pod of owner (a DaemonSet, or none) on node.
func runningPod(ns, name, nodeName, image, owner string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{Name: "main", Image: image}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
	if owner != "" {
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: owner, Controller: ptr.To(true)}}
	}
	return p
}

// healthy is a seed-shaped cluster: one Linux node, a Windows Server 2019
// and a 2022 node on flannel VXLAN (VNI 4096, port 4789), kube-proxy and
// flannel running on every Windows node, fresh leases.
func healthy() *State {
	nodes := []*corev1.Node{
		node("linux-1", "linux", "172.18.0.2", "10.244.0.0/24", ""),
		node("win2019-1", "windows", "172.18.0.3", "10.244.1.0/24", build2019),
		node("win2022-1", "windows", "172.18.0.4", "10.244.2.0/24", build2022),
	}
	s := &State{Snapshot: &network.Snapshot{Nodes: nodes, K8sMinor: 36}, Now: now}
	s.ConfigMaps = []*corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "kube-flannel-cfg", Namespace: "kube-system"},
		Data: map[string]string{"net-conf.json": seedNetConf}}}
	s.Services = []*corev1.Service{service("default", "kubernetes", "10.96.0.1"), service("kube-system", "kube-dns", "10.96.0.10"),
		service("shop", "web", "10.96.0.20")}
	s.DaemonSets = []*appsv1.DaemonSet{proxyDS(seedProxyArgs...)}
	s.AllDaemonSets = s.DaemonSets
	for _, n := range nodes {
		s.Leases = append(s.Leases, lease(n.Name, now.Add(-5*time.Second)))
		s.Pods = append(s.Pods, runningPod("kube-system", "flannel-"+n.Name, n.Name, "docker.io/flannel/flannel:v0.26.7", "flannel"))
		if n.Labels["kubernetes.io/os"] == "windows" {
			s.Pods = append(s.Pods, runningPod("kube-system", "kube-proxy-"+n.Name, n.Name, "docker.io/sigwindowstools/kube-proxy:v1.36.3-flannel-hostprocess", "kube-proxy-windows"))
		}
	}
	return s
}

func (s *State) node(name string) *corev1.Node {
	for _, n := range s.Nodes {
		if n.Name == name {
			return n
		}
	}
	panic("no node " + name)
}

func (s *State) pod(name string) *corev1.Pod {
	for _, p := range s.Pods {
		if p.Name == name {
			return p
		}
	}
	panic("no pod " + name)
}
