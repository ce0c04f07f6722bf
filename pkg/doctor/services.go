package doctor

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/winkube/winkube/pkg/network"
	"github.com/winkube/winkube/pkg/rules"
	winservice "github.com/winkube/winkube/pkg/windows/service"
)

// checkServices applies KP-7's NodePort issue per Service, from the nodes
// its live backend pods run on: winservice.OverlayNodePortIssue, which lint
// asks with the nodes those pods can land on, so both say it of the same
// Service in the same words. (The network model's per-node view of it is
// left out in checkNetworkModel.)
func checkServices(a *audit) []Finding {
	byName := map[string]*network.Node{}
	dsr := true
	for _, n := range a.model.Nodes {
		byName[n.Name] = n
		if n.OS == "windows" {
			dsr = dsr && n.Proxy.EnableDSR
		}
	}
	var out []Finding
	for _, svc := range a.s.Services {
		var nodes []winservice.BackendNode
		var pods []string
		for _, p := range backendPods(a, svc) {
			n := byName[p.Spec.NodeName]
			if n == nil || n.OS != "windows" {
				continue
			}
			nodes = append(nodes, winservice.BackendNode{Name: n.Name, Build: n.Build, NetworkMode: n.Mode})
			pods = append(pods, p.Name+" on "+n.Name)
		}
		v := winservice.OverlayNodePortIssue(&svc.Spec, nodes, dsr)
		if v == nil {
			continue
		}
		out = append(out, Finding{
			Finding:  rules.New(v.Rule, "", v.Message).WithFix(v.Fix),
			Objects:  []Object{{Kind: "Service", Namespace: svc.Namespace, Name: svc.Name}},
			Evidence: "externalTrafficPolicy: " + string(orCluster(svc.Spec.ExternalTrafficPolicy)) + "; backend pods: " + strings.Join(pods, ", "),
		})
	}
	return out
}

// backendPods are the scheduled pods in the Service's namespace its
// selector matches.
func backendPods(a *audit, svc *corev1.Service) []*corev1.Pod {
	if len(svc.Spec.Selector) == 0 {
		return nil
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	var out []*corev1.Pod
	for _, p := range a.s.Pods {
		if p.Namespace == svc.Namespace && p.Spec.NodeName != "" && p.DeletionTimestamp == nil && sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out
}

func orCluster(p corev1.ServiceExternalTrafficPolicy) corev1.ServiceExternalTrafficPolicy {
	if p == "" {
		return corev1.ServiceExternalTrafficPolicyCluster
	}
	return p
}
