package doctor

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network"
	"github.com/winkube/winkube/pkg/rules"
)

// checkNetworkModel turns the network model's findings (pkg/network reads
// net-conf.json and the Windows kube-proxy DaemonSet's flags the way
// flanneld and kube-proxy do) into doctor findings with the objects, the
// flags as evidence and a fix.
func checkNetworkModel(a *audit) []Finding {
	var out []Finding
	for _, f := range a.model.Cluster.Findings {
		out = append(out, a.clusterFinding(f))
	}
	for _, n := range a.model.Nodes {
		for _, f := range n.Findings {
			if f.Rule == "KP-7" && f.Case == "" {
				// The proxy model's view from the node receiving NodePort
				// traffic; KP-7 is about the backend's node, which
				// checkServices decides per Service.
				continue
			}
			out = append(out, a.nodeFinding(n, f))
		}
	}
	return out
}

// clusterFinding adds the flannel ConfigMap and its net-conf.json as
// evidence to what the model says about it (NET-2, PLAN-2). Severity, fix
// and see-also are the finding's own, from the rule book.
func (a *audit) clusterFinding(f rules.Finding) Finding {
	out := Finding{Finding: f}
	if f.Rule == "NET-2" || f.Rule == "PLAN-2" {
		a.addFlannelConfig(&out)
	}
	return out
}

// nodeFinding adds the node and, for what kube-proxy does, its DaemonSet
// and flags; for NET-2 the flannel ConfigMap.
func (a *audit) nodeFinding(n *network.Node, f rules.Finding) Finding {
	out := Finding{Finding: f, Objects: []Object{nodeObject(n.Name)}}
	if ds := a.proxyDaemonSet(n); ds != nil && kubeProxyFinding(f) {
		out.Objects = append(out.Objects, Object{Kind: "DaemonSet", Namespace: ds.Namespace, Name: ds.Name})
		out.Evidence = proxyArgs(ds.Spec.Template.Spec)
	}
	if f.Rule == "NET-2" {
		a.addFlannelConfig(&out)
	}
	return out
}

// addFlannelConfig names kube-flannel-cfg and quotes its net-conf.json.
func (a *audit) addFlannelConfig(f *Finding) {
	if cm := a.flannelConfigMap(); cm != nil {
		f.Objects = append(f.Objects, Object{Kind: "ConfigMap", Namespace: cm.Namespace, Name: cm.Name})
		f.Evidence = "net-conf.json: " + compact(cm.Data["net-conf.json"])
	}
}

// kubeProxyFinding: what the model says kube-proxy does with its flags
// and the Services (KP-*, TS-5, the Service limits its proxier applies)
// and TS-1 unless it is about flanneld.
func kubeProxyFinding(f rules.Finding) bool {
	switch f.Rule {
	case "TS-5", "LIM-10", "LIM-11", "LIM-12", "LIM-13":
		return true
	case "TS-1":
		return f.Case != "flanneld"
	}
	return strings.HasPrefix(f.Rule, "KP-")
}

// proxyDaemonSet is the kube-system DaemonSet the node's kube-proxy flags
// come from.
func (a *audit) proxyDaemonSet(n *network.Node) *appsv1.DaemonSet {
	if n.Proxy.DaemonSet == "" {
		return nil
	}
	for _, ds := range a.s.DaemonSets {
		if ds.Namespace == "kube-system" && ds.Name == n.Proxy.DaemonSet {
			return ds
		}
	}
	return nil
}

// flannelConfigMap is kube-flannel-cfg (kube-system, else kube-flannel).
func (a *audit) flannelConfigMap() *corev1.ConfigMap {
	for _, ns := range []string{"kube-system", "kube-flannel"} {
		for _, cm := range a.s.ConfigMaps {
			if cm.Namespace == ns && cm.Name == "kube-flannel-cfg" {
				return cm
			}
		}
	}
	return nil
}

// compact puts JSON on one line.
func compact(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// proxyArgs quotes a kube-proxy pod spec's command and args.
func proxyArgs(spec corev1.PodSpec) string {
	for _, c := range spec.Containers {
		if isKubeProxy(&c) {
			return fmt.Sprintf("container %s args: %s", c.Name, strings.Join(append(append([]string{}, c.Command...), c.Args...), " "))
		}
	}
	return ""
}
