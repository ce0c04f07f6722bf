package addons

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/windows"
)

// Names of the kube-proxy objects.
const (
	KubeProxyDaemonSet        = "kube-proxy"
	KubeProxyWindowsDaemonSet = "kube-proxy-windows"
	KubeProxyServiceAccount   = "kube-proxy"
)

// SourceVIPPlaceholder stands for the overlay source VIP in kube-proxy's
// arguments (KP-2). The VIP is an address of the node's own pod subnet,
// known only on the node, so the image's start script reserves it and
// fills it in. No env var of that name is set, so the kubelet leaves
// $(SOURCE_VIP) as it is; a reader of the DaemonSet sees a value that is not
// an IP and knows it is filled at run time.
const SourceVIPPlaceholder = "$(SOURCE_VIP)"

func kubeProxyObjects(n *v1alpha1.Network, k8sMinor int) []Object {
	labels := map[string]string{"k8s-app": "kube-proxy"}
	return []Object{
		&corev1.ServiceAccount{TypeMeta: typeMeta("v1", "ServiceAccount"), ObjectMeta: meta(KubeProxyServiceAccount, labels)},
		// system:node-proxier is the API server's built-in role for kube-proxy.
		clusterRoleBinding("winkube:node-proxier", "system:node-proxier", KubeProxyServiceAccount, labels),
		kubeProxyLinux(n),
		kubeProxyWindows(n, k8sMinor),
	}
}

// kubeProxyLinux is kubeadm's kube-proxy DaemonSet (iptables mode), with its
// settings as flags instead of a config file.
func kubeProxyLinux(n *v1alpha1.Network) *appsv1.DaemonSet {
	labels := map[string]string{"k8s-app": "kube-proxy"}
	spec := corev1.PodSpec{
		HostNetwork:        true,
		PriorityClassName:  "system-node-critical",
		ServiceAccountName: KubeProxyServiceAccount,
		NodeSelector:       linuxOnly,
		Tolerations:        []corev1.Toleration{anyTaint},
		Containers: []corev1.Container{{
			Name:    "kube-proxy",
			Image:   KubeProxyImage,
			Command: []string{"/usr/local/bin/kube-proxy"},
			Args: []string{
				"--proxy-mode=iptables",
				"--cluster-cidr=" + n.ClusterCIDR,
				"--hostname-override=$(NODE_NAME)",
			},
			Env:             []corev1.EnvVar{fieldEnv("NODE_NAME", "spec.nodeName")},
			SecurityContext: &corev1.SecurityContext{Privileged: ptrTo(true)},
			VolumeMounts: []corev1.VolumeMount{{Name: "xtables-lock", MountPath: "/run/xtables.lock"},
				{Name: "lib-modules", MountPath: "/lib/modules", ReadOnly: true}},
		}},
		Volumes: []corev1.Volume{
			hostPathVolume("xtables-lock", "/run/xtables.lock", corev1.HostPathFileOrCreate),
			hostPathVolume("lib-modules", "/lib/modules", ""),
		},
	}
	return daemonSet(KubeProxyDaemonSet, labels, spec)
}

// kubeProxyWindows is kube-proxy in kernelspace (winkernel) mode on every
// Windows node, as a HostProcess pod (sig-windows-tools' kube-proxy-windows).
// The image's entrypoint passes the container's args to kube-proxy.exe.
func kubeProxyWindows(n *v1alpha1.Network, k8sMinor int) *appsv1.DaemonSet {
	labels := map[string]string{"k8s-app": "kube-proxy-windows"}
	env := []corev1.EnvVar{
		// KP-8: the kubelet fills $(NODE_NAME) with the node's own name, so
		// --hostname-override always matches the node.
		fieldEnv("NODE_NAME", "spec.nodeName"),
	}
	if n.Mode == v1alpha1.ModeL2Bridge {
		// KP-1: without --network-name kube-proxy takes KUBE_NETWORK.
		env = append(env, corev1.EnvVar{Name: "KUBE_NETWORK", Value: NetworkName(n.Mode)})
	}
	spec := corev1.PodSpec{
		SecurityContext:    hostProcess(),
		HostNetwork:        true,
		PriorityClassName:  "system-node-critical",
		ServiceAccountName: KubeProxyServiceAccount,
		NodeSelector:       windowsOnly,
		Tolerations:        []corev1.Toleration{windowsTaint, criticalAddons, anyTaint},
		Containers: []corev1.Container{{
			Name:  "kube-proxy",
			Image: KubeProxyWindowsImage,
			Args:  windowsProxyArgs(n, k8sMinor),
			Env:   env,
		}},
	}
	return daemonSet(KubeProxyWindowsDaemonSet, labels, spec)
}

// windowsProxyArgs are the seed's kube-proxy flags for Windows (PLAN-4):
// kernelspace mode, the node name, and on overlay the HNS network and the
// source VIP (KP-1, KP-2); --enable-dsr from network.enableDSR.
//
// Feature gates are passed only while the Kubernetes version needs them:
// WinOverlay and WinDSR are GA and locked on since 1.34, and a gate passed
// after upstream removes it makes kube-proxy refuse to start, so a 1.34+
// cluster gets no --feature-gates at all.
func windowsProxyArgs(n *v1alpha1.Network, k8sMinor int) []string {
	args := []string{"--proxy-mode=kernelspace", "--hostname-override=$(NODE_NAME)"}
	var gates []string
	if n.Mode == v1alpha1.ModeOverlay {
		args = append(args, "--network-name="+NetworkName(n.Mode), "--source-vip="+SourceVIPPlaceholder)
		if !windows.FeatureAvailable(windows.FeatureWinOverlayGA, k8sMinor) {
			gates = append(gates, windows.FeatureWinOverlayGA+"=true")
		}
	}
	if n.EnableDSR {
		args = append(args, "--enable-dsr=true")
		if !windows.FeatureAvailable(windows.FeatureWinDSRGA, k8sMinor) {
			gates = append(gates, windows.FeatureWinDSRGA+"=true")
		}
	}
	if len(gates) > 0 {
		args = append(args, "--feature-gates="+strings.Join(gates, ","))
	}
	return args
}

func ptrTo[T any](v T) *T { return &v }
