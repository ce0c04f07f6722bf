// Package addons builds the kube-system add-ons `winkube up` installs, so a
// new cluster looks like the one seed 004 leaves behind: flannel for Linux
// and for Windows (HostProcess), kube-proxy for Linux and a Windows
// kube-proxy (HostProcess, kernelspace), and CoreDNS behind the kube-dns
// Service. Everything is derived from the cluster config; the objects are
// also where the network model (pkg/network) reads the cluster's network
// settings from, as it would on a real cluster.
//
// Namespace: everything lives in kube-system, as in seed 004's era. Upstream
// flannel has since moved to its own kube-flannel namespace; tools that look
// for kube-flannel-cfg there will not find it here.
package addons

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/windows"
)

// Namespace holds every add-on.
const Namespace = metav1.NamespaceSystem

// KubernetesVersion is the release of the embedded control plane; it picks
// the kube-proxy images and decides which feature gates kube-proxy needs.
// (The integration test compares it with the API server's /version.)
const KubernetesVersion = kubeversion.Default

// Images of the add-ons. The Windows images follow sig-windows-tools'
// naming for its HostProcess builds (<component>:<version>-hostprocess);
// like every HostProcess image they are built FROM the HostProcess base
// image and carry no os.version, so they run on any Windows build.
const (
	// FlannelImage is flannel for Linux (flannel v0.26.7's kube-flannel.yml).
	FlannelImage = "docker.io/flannel/flannel:v0.26.7"
	// FlannelCNIPluginImage installs the flannel CNI binary on Linux nodes.
	FlannelCNIPluginImage = "docker.io/flannel/flannel-cni-plugin:v1.6.2-flannel1"
	// FlannelWindowsImage runs flanneld.exe as a HostProcess container.
	FlannelWindowsImage = "docker.io/sigwindowstools/flannel:v0.26.7-hostprocess"
	// KubeProxyImage is kube-proxy for Linux, as kubeadm deploys it.
	KubeProxyImage = "registry.k8s.io/kube-proxy:" + KubernetesVersion
	// KubeProxyWindowsImage runs kube-proxy.exe as a HostProcess container.
	KubeProxyWindowsImage = "docker.io/sigwindowstools/kube-proxy:" + KubernetesVersion + "-flannel-hostprocess"
	// CoreDNSImage is the CoreDNS kubeadm 1.36 deploys (constants.CoreDNSVersion).
	CoreDNSImage = "registry.k8s.io/coredns/coredns:v1.14.2"
)

// ClusterDomain is the DNS domain of the cluster (PLAN-4 --cluster-domain).
const ClusterDomain = "cluster.local"

// Object is a typed API object with apiVersion and kind set.
type Object interface {
	runtime.Object
	metav1.Object
}

// Objects returns every add-on object for the cluster, in the order they
// should be created (accounts and configuration before the workloads that
// use them).
func Objects(cfg *v1alpha1.Cluster) []Object {
	return objects(cfg, kubeversion.DefaultMinor)
}

// objects builds the add-ons for a given Kubernetes minor version (which
// decides kube-proxy's feature gates, KP-2).
func objects(cfg *v1alpha1.Cluster, k8sMinor int) []Object {
	n := &cfg.Network
	var out []Object
	out = append(out, flannelObjects(n)...)
	out = append(out, kubeProxyObjects(n, k8sMinor)...)
	out = append(out, coreDNSObjects(n)...)
	return out
}

// meta is the ObjectMeta of a kube-system object.
func meta(name string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: Namespace, Labels: labels}
}

// clusterMeta is the ObjectMeta of a cluster-scoped object.
func clusterMeta(name string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Labels: labels}
}

// Node selectors that pin a workload to one OS (PLAN-2, SCH-3).
var (
	linuxOnly   = map[string]string{corev1.LabelOSStable: v1alpha1.OSLinux}
	windowsOnly = map[string]string{corev1.LabelOSStable: v1alpha1.OSWindows}
)

// Tolerations shared by the node agents (flannel, kube-proxy).
var (
	// windowsTaint tolerates the taint SCH-3 puts on every Windows node.
	windowsTaint = windows.WindowsToleration()
	// anyNoSchedule lets a node agent run on a node whatever else it is
	// tainted with: without its network no pod on the node works.
	anyNoSchedule   = corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	anyTaint        = corev1.Toleration{Operator: corev1.TolerationOpExists}
	criticalAddons  = corev1.Toleration{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}
	controlPlaneTnt = corev1.Toleration{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}
)

// fieldEnv is an environment variable from a field of the pod.
func fieldEnv(name, path string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}
}

// hostProcess is the pod security context of a Windows HostProcess pod
// that runs as the node's SYSTEM account, as the sig-windows-tools
// HostProcess DaemonSets do.
func hostProcess() *corev1.PodSecurityContext {
	yes := true
	user := `NT AUTHORITY\system`
	return &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: &yes, RunAsUserName: &user}}
}

func configMapVolume(name, configMap string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: configMap}}}}
}

func hostPathVolume(name, path string, kind corev1.HostPathType) corev1.Volume {
	v := corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path}}}
	if kind != "" {
		v.HostPath.Type = &kind
	}
	return v
}
