package doctor

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network/cni"
	"github.com/winkube/winkube/pkg/rules"
)

// checkNodes: TS-1, a node that is not Ready or whose lease has stopped.
func checkNodes(a *audit) []Finding {
	var out []Finding
	for _, name := range a.names {
		n := a.nodes[name]
		if f, bad := notReady(n); bad {
			out = append(out, f)
		}
		if f, bad := a.staleLease(n); bad {
			out = append(out, f)
		}
	}
	return out
}

// notReady reports a node whose Ready condition is not True, with the
// condition and the taints the node lifecycle controller put on it.
func notReady(n *corev1.Node) (Finding, bool) {
	evidence := "no Ready condition"
	for _, c := range n.Status.Conditions {
		if c.Type != corev1.NodeReady {
			continue
		}
		if c.Status == corev1.ConditionTrue {
			return Finding{}, false
		}
		evidence = fmt.Sprintf("Ready=%s %s: %s (since %s)", c.Status, c.Reason, c.Message, c.LastTransitionTime.UTC().Format(time.RFC3339))
	}
	if t := taintList(n.Spec.Taints); t != "" {
		evidence += "; taints " + t
	}
	return Finding{
		Finding:  rules.New("TS-1", "", fmt.Sprintf("node %s is not Ready: no new pod is scheduled there and its pods are evicted once the not-ready taints' toleration runs out", describeNode(n))).WithFix(kubeletFix(n)),
		Objects:  []Object{nodeObject(n.Name)},
		Evidence: evidence,
	}, true
}

// staleLease: the kubelet renews its lease in kube-node-lease every 10 s;
// one older than its duration means the kubelet stopped or cannot reach
// the API server (the node lifecycle controller marks the node Unknown).
func (a *audit) staleLease(n *corev1.Node) (Finding, bool) {
	f := Finding{
		Finding: rules.New("TS-1", "", "").WithFix(kubeletFix(n)),
		Objects: []Object{nodeObject(n.Name)},
	}
	l, ok := a.leases[n.Name]
	if !ok {
		f.Message = fmt.Sprintf("node %s has no Lease in %s: its kubelet never started or cannot reach the API server", describeNode(n), leaseNamespace)
		f.Evidence = "Lease " + leaseNamespace + "/" + n.Name + " not found"
		return f, true
	}
	f.Objects = append(f.Objects, Object{Kind: "Lease", Namespace: l.Namespace, Name: l.Name})
	duration := 40 * time.Second
	if l.Spec.LeaseDurationSeconds != nil {
		duration = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
	}
	if l.Spec.RenewTime == nil {
		f.Message = fmt.Sprintf("the Lease of node %s was never renewed: its kubelet is not sending heartbeats", n.Name)
		f.Evidence = "spec.renewTime is empty"
		return f, true
	}
	age := a.s.Now.Sub(l.Spec.RenewTime.Time)
	if age <= duration {
		return Finding{}, false
	}
	f.Message = fmt.Sprintf("the Lease of node %s stopped being renewed %s ago (lease duration %s): its kubelet stopped or lost the API server", n.Name, age.Round(time.Second), duration)
	f.Evidence = fmt.Sprintf("spec.renewTime %s, holder %s", l.Spec.RenewTime.UTC().Format(time.RFC3339), deref(l.Spec.HolderIdentity))
	return f, true
}

// kubeletFix tells how to look at the kubelet on the node's OS.
func kubeletFix(n *corev1.Node) string {
	if isWindowsNode(n) {
		return "on the node run Get-Service kubelet, containerd, kube-proxy, flanneld; Start-Service the stopped ones and read the kubelet log (C:\\k\\kubelet.log or its --log-file) for why it cannot reach the API server"
	}
	return "on the node run systemctl status kubelet and journalctl -u kubelet; start it and check it reaches the API server"
}

func taintList(ts []corev1.Taint) string {
	var parts []string
	for _, t := range ts {
		parts = append(parts, t.ToString())
	}
	return strings.Join(parts, ", ")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// checkNodeAgents: TS-1 (kube-proxy or flanneld missing on a Windows node),
// TS-7 (a flannel pod not ready), TS-8 (a node flanneld never registered).
// Nodes that are not Ready are left to checkNodes.
func checkNodeAgents(a *audit) []Finding {
	var out []Finding
	flannel := a.usesFlannel()
	for _, name := range a.names {
		n := a.nodes[name]
		if _, bad := notReady(n); bad {
			continue
		}
		fl := agentPods(a.podsOn[name], isFlannel)
		out = append(out, notReadyAgents(fl, "TS-7", "flanneld")...)
		if !isWindowsNode(n) {
			continue
		}
		out = append(out, a.kubeProxyAgent(n)...)
		if flannel {
			out = append(out, flannelAgent(n, fl)...)
		}
	}
	return out
}

// usesFlannel: kube-flannel-cfg exists or a node carries flannel's
// annotations; other CNIs have neither, and then flannel is not expected.
func (a *audit) usesFlannel() bool {
	if a.model.Cluster.Flannel.Found {
		return true
	}
	for _, n := range a.s.Nodes {
		if n.Annotations[cni.AnnotationBackendType] != "" {
			return true
		}
	}
	return false
}

// kubeProxyAgent: a Windows kube-proxy DaemonSet covers the node but no
// pod of it runs there, or the pod is not ready. Without any DaemonSet the
// network model reports TS-1 itself.
func (a *audit) kubeProxyAgent(n *corev1.Node) []Finding {
	m := a.modelNode(n.Name)
	pods := agentPods(a.podsOn[n.Name], isKubeProxy)
	if m == nil || !m.Proxy.Found || len(pods) > 0 {
		return notReadyAgents(pods, "TS-1", "kube-proxy")
	}
	return []Finding{{
		Finding:  rules.New("TS-1", "", fmt.Sprintf("DaemonSet kube-system/%s should run kube-proxy on %s but no pod of it is there: no Service works from that node's pods", m.Proxy.DaemonSet, describeNode(n))).WithFix(fmt.Sprintf("kubectl -n kube-system describe daemonset %s and look at its events for why the pod is not created on %s", m.Proxy.DaemonSet, n.Name)),
		Objects:  []Object{nodeObject(n.Name), {Kind: "DaemonSet", Namespace: "kube-system", Name: m.Proxy.DaemonSet}},
		Evidence: "no kube-proxy pod bound to the node",
	}}
}

// flannelAgent: no flannel pod on a Windows node of a flannel cluster. If
// flanneld published the node's annotations it runs as a Windows service
// (seed 000's start.ps1), which the API cannot see; otherwise it never
// registered the node, so no subnet.env exists (TS-8).
func flannelAgent(n *corev1.Node, pods []*corev1.Pod) []Finding {
	if len(pods) > 0 || n.Annotations[cni.AnnotationBackendType] != "" {
		return nil
	}
	return []Finding{{
		Finding:  rules.New("TS-8", "unregistered", fmt.Sprintf("flanneld has not registered node %s: no flannel pod runs there and the node has no %s annotation, so /run/flannel/subnet.env was never written and pods there get no network", describeNode(n), cni.AnnotationBackendType)),
		Objects:  []Object{nodeObject(n.Name)},
		Evidence: fmt.Sprintf("pod CIDR %q, annotations without flannel.alpha.coreos.com/*", n.Spec.PodCIDR),
	}}
}

// notReadyAgents reports node-agent pods that are not ready.
func notReadyAgents(pods []*corev1.Pod, rule, agent string) []Finding {
	var out []Finding
	for _, p := range pods {
		if podReady(p) || p.DeletionTimestamp != nil {
			continue
		}
		f := Finding{
			Finding:  rules.New(rule, "", fmt.Sprintf("%s on node %s is not ready: the node's pods have no working network to other nodes or to Services", agent, p.Spec.NodeName)).WithFix(fmt.Sprintf("kubectl -n %s logs %s; then kubectl -n %s delete pod %s so its DaemonSet starts it again", p.Namespace, p.Name, p.Namespace, p.Name)),
			Objects:  []Object{podObject(p), nodeObject(p.Spec.NodeName)},
			Evidence: containerTrouble(p),
		}
		if rule == "TS-7" {
			f.Message += "; a Windows flanneld stuck at \"Waiting for the Network to be created\" needs a restart once the HNS network exists"
			f.Fix += " (a flanneld service: Restart-Service flanneld)"
		}
		out = append(out, f)
	}
	return out
}

func agentPods(pods []*corev1.Pod, is func(*corev1.Container) bool) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		for i := range p.Spec.Containers {
			if is(&p.Spec.Containers[i]) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// isFlannel: the image's repository is flannel's (not the CNI plugin
// installer, not the sig-windows-tools kube-proxy tagged "-flannel-").
func isFlannel(c *corev1.Container) bool {
	repo, _, _ := strings.Cut(c.Image[strings.LastIndex(c.Image, "/")+1:], ":")
	return strings.Contains(repo, "flannel") && !strings.Contains(repo, "cni-plugin")
}

// isKubeProxy: the image is a kube-proxy image or the command starts it.
func isKubeProxy(c *corev1.Container) bool {
	return strings.Contains(c.Image, "kube-proxy") || strings.Contains(strings.Join(c.Command, " "), "kube-proxy")
}
