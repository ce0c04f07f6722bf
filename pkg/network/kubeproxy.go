package network

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	schedhelpers "k8s.io/component-helpers/scheduling/corev1"
)

// proxyDaemon is a kube-system DaemonSet that runs kube-proxy on Windows
// nodes, and its kube-proxy container.
type proxyDaemon struct {
	ds *appsv1.DaemonSet
	c  *corev1.Container
}

// windowsProxies finds the DaemonSets whose pods target Windows nodes and
// run kube-proxy, in name order.
func windowsProxies(dss []*appsv1.DaemonSet) []proxyDaemon {
	var out []proxyDaemon
	for _, ds := range dss {
		if ds == nil || ds.Namespace != kubeSystem || !targetsWindows(&ds.Spec.Template.Spec) {
			continue
		}
		for i := range ds.Spec.Template.Spec.Containers {
			if c := &ds.Spec.Template.Spec.Containers[i]; isKubeProxy(c) {
				out = append(out, proxyDaemon{ds: ds, c: c})
				break
			}
		}
	}
	return out
}

// targetsWindows: a nodeSelector or required node affinity on
// kubernetes.io/os=windows.
func targetsWindows(spec *corev1.PodSpec) bool {
	if spec.NodeSelector["kubernetes.io/os"] == "windows" || spec.NodeSelector["beta.kubernetes.io/os"] == "windows" {
		return true
	}
	a := spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return false
	}
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, r := range t.MatchExpressions {
			if (r.Key == "kubernetes.io/os" || r.Key == "beta.kubernetes.io/os") && r.Operator == corev1.NodeSelectorOpIn && contains(r.Values, "windows") {
				return true
			}
		}
	}
	return false
}

// isKubeProxy: the container's command or arguments start kube-proxy, or
// its image is a kube-proxy image (the sig-windows-tools HostProcess
// image starts kube-proxy from its own script).
func isKubeProxy(c *corev1.Container) bool {
	words := strings.Join(append(append([]string{}, c.Command...), c.Args...), " ")
	if strings.Contains(words, "kube-proxy") || strings.Contains(words, "--proxy-mode") {
		return true
	}
	return len(c.Command) == 0 && len(c.Args) == 0 && strings.Contains(c.Image, "kube-proxy")
}

// covers reports whether the DaemonSet runs a pod on node: its node
// selector and required affinity match and its tolerations cover the
// node's NoSchedule and NoExecute taints.
func (d proxyDaemon) covers(node *corev1.Node) bool {
	spec := d.ds.Spec.Template.Spec
	for k, v := range spec.NodeSelector {
		if node.Labels[k] != v {
			return false
		}
	}
	if ok, err := nodeaffinity.GetRequiredNodeAffinity(&corev1.Pod{Spec: spec}).Match(node); err != nil || !ok {
		return false
	}
	_, untolerated := schedhelpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, spec.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, false)
	return !untolerated
}

// proxyFor picks the first Windows kube-proxy DaemonSet covering node.
func proxyFor(ds []proxyDaemon, node *corev1.Node) (proxyDaemon, bool) {
	for _, d := range ds {
		if d.covers(node) {
			return d, true
		}
	}
	return proxyDaemon{}, false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
