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
			out = append(out, a.nodeFinding(n, f))
		}
	}
	return out
}

// clusterFinding: PLAN-1 and PLAN-2 findings about assumed defaults are
// informational; a broken net-conf.json (PLAN-2 with a ConfigMap) or a
// VXLAN Windows cannot join (NET-2) is an error.
func (a *audit) clusterFinding(f network.Finding) Finding {
	out := Finding{
		Finding: rules.Finding{Rule: f.Rule, Severity: rules.SeverityInfo,
			Message: f.Message,
			Fix:     modelFixes[f.Rule]},
	}
	if cm := a.flannelConfigMap(); cm != nil && (f.Rule == "NET-2" || f.Rule == "PLAN-2") {
		out.Objects = []Object{{Kind: "ConfigMap", Namespace: cm.Namespace, Name: cm.Name}}
		out.Evidence = "net-conf.json: " + compact(cm.Data["net-conf.json"])
		out.Severity = rules.SeverityError
	}
	if f.Rule == "PLAN-1" {
		out.Fix = "nothing to do if the assumed value is right; otherwise create the object the message names so every tool reads the same value"
	}
	return out
}

// nodeFinding maps a node's finding; the kube-proxy ones name its
// DaemonSet and quote its flags.
func (a *audit) nodeFinding(n *network.Node, f network.Finding) Finding {
	out := Finding{
		Finding: rules.Finding{Rule: f.Rule, Severity: modelSeverity(n, f),
			Message: f.Message,
			Fix:     modelFixes[f.Rule]},
		Objects: []Object{nodeObject(n.Name)},
	}
	if ds := a.proxyDaemonSet(n); ds != nil && proxyRule(f) {
		out.Objects = append(out.Objects, Object{Kind: "DaemonSet", Namespace: ds.Namespace, Name: ds.Name})
		out.Evidence = proxyArgs(ds.Spec.Template.Spec)
	}
	switch f.Rule {
	case "KP-7":
		out.Fix = kp7Fix(n, f)
		out.See = []string{"LIM-12"}
	case "TS-5":
		out.See = []string{"KP-8"}
	case "KP-8":
		out.See = []string{"TS-5"}
	case "TS-8":
		out.See = []string{"NET-8"}
	}
	if f.Rule == "NET-2" {
		if cm := a.flannelConfigMap(); cm != nil {
			out.Objects = append(out.Objects, Object{Kind: "ConfigMap", Namespace: cm.Namespace, Name: cm.Name})
			out.Evidence = "net-conf.json: " + compact(cm.Data["net-conf.json"])
		}
	}
	return out
}

// modelSeverity: what stops a node's network is an error; a node without
// any kube-proxy DaemonSet may run kube-proxy as a Windows service the API
// cannot see (warning); assumptions are info; known issues warnings.
func modelSeverity(n *network.Node, f network.Finding) rules.Severity {
	switch f.Rule {
	case "PLAN-1", "PLAN-2":
		return rules.SeverityInfo
	case "KP-5", "KP-7":
		return rules.SeverityWarning
	case "TS-1":
		if !n.Proxy.Found && strings.Contains(f.Message, "kube-proxy") {
			return rules.SeverityWarning
		}
	}
	return rules.SeverityError
}

// proxyRule: findings about the kube-proxy flags.
func proxyRule(f network.Finding) bool {
	return strings.HasPrefix(f.Rule, "KP-") || f.Rule == "TS-5" || strings.Contains(f.Message, "kube-proxy")
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

// kp7Fix says how to get around KP-7's known issues without running into
// LIM-12, which lint and doctor report as an error: externalTrafficPolicy
// Local is unsupported unless kube-proxy runs with DSR, so Local is advised
// only where kube-proxy has --enable-dsr, and turning DSR off comes with
// moving Local Services to Cluster.
func kp7Fix(n *network.Node, f network.Finding) string {
	if !strings.Contains(f.Message, "NodePort") {
		// The l2bridge issue: pod-to-pod traffic breaks under DSR.
		return fmt.Sprintf("remove --enable-dsr from kube-proxy on %s, and give Services whose backends run there externalTrafficPolicy: Cluster, since Local needs DSR (LIM-12)", n.Name)
	}
	if n.Proxy.EnableDSR {
		return "set the Service's externalTrafficPolicy: Local (kube-proxy here runs with --enable-dsr, which Local needs, LIM-12), or run its backends on Windows builds other than Server 2022"
	}
	return "run the Service's backends on Windows builds other than Server 2022; or start kube-proxy with --feature-gates=WinDSR=true --enable-dsr=true and then set externalTrafficPolicy: Local, never Local alone: without DSR it is unsupported on Windows (LIM-12)"
}

// modelFixes say how to fix each rule the model reports.
var modelFixes = map[string]string{
	"TS-1":   "run kube-proxy on every Windows node (the kube-proxy-windows DaemonSet with kubernetes.io/os: windows and a toleration for the Windows taint, or the kube-proxy service) in kernelspace mode",
	"TS-5":   "add --hostname-override=$(NODE_NAME) to the Windows kube-proxy, with NODE_NAME from fieldRef spec.nodeName",
	"KP-8":   "set --hostname-override to the node name: $(NODE_NAME) with NODE_NAME from fieldRef spec.nodeName",
	"KP-1":   "pass --network-name (or set KUBE_NETWORK) to the HNS network flanneld creates: vxlan0 for overlay, cbr0 for host-gw in the seeds",
	"KP-2":   "give kube-proxy the flags its mode needs: --feature-gates=WinDSR=true with --enable-dsr before 1.33, WinOverlay=true and --source-vip on overlay before 1.34",
	"KP-5":   "label the node with node.kubernetes.io/windows-build, or drop the flag the build does not support",
	"NET-2":  "set net-conf.json's Backend to {\"Type\": \"vxlan\", \"VNI\": 4096, \"Port\": 4789} in kube-flannel-cfg and restart the flannel pods",
	"TS-8":   "give the node a pod CIDR (kube-controller-manager --allocate-node-cidrs with --cluster-cidr, or spec.podCIDR) so flanneld can lease its subnet and write subnet.env",
	"PLAN-2": "fix kube-flannel-cfg's net-conf.json (valid JSON with Network and Backend) and restart the flannel pods",
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
