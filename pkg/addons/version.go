package addons

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/kubeversion"
)

// ObjectsForVersion is Objects for a cluster of another Kubernetes
// release (a full version such as v1.27.16): kube-proxy's feature gates
// (KP-2) and its images follow that release. `winkube plan` writes these
// for real clusters; Objects is ObjectsForVersion at KubernetesVersion.
func ObjectsForVersion(cfg *v1alpha1.Cluster, version string) []Object {
	minor, _ := kubeversion.ParseMinor(version) // unreadable: 0, so every feature gate is passed
	objs := objects(cfg, minor)
	if version == KubernetesVersion {
		return objs
	}
	images := map[string]string{
		KubeProxyImage:        "registry.k8s.io/kube-proxy:" + version,
		KubeProxyWindowsImage: "docker.io/sigwindowstools/kube-proxy:" + version + "-flannel-hostprocess",
	}
	for _, o := range objs {
		ds, ok := o.(*appsv1.DaemonSet)
		if !ok {
			continue
		}
		for i := range ds.Spec.Template.Spec.Containers {
			c := &ds.Spec.Template.Spec.Containers[i]
			if img, ok := images[c.Image]; ok {
				c.Image = img
			}
		}
	}
	return objs
}

// WindowsProxyArgs are the Windows kube-proxy flags of Kubernetes
// 1.<k8sMinor> (PLAN-4, KP-1, KP-2), as the kube-proxy-windows DaemonSet
// passes them: --hostname-override=$(NODE_NAME) and on overlay
// --source-vip=$(SOURCE_VIP) are filled in on the node.
func WindowsProxyArgs(n *v1alpha1.Network, k8sMinor int) []string {
	return windowsProxyArgs(n, k8sMinor)
}
