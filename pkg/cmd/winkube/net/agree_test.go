package net

import (
	"bytes"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/doctor"
	"github.com/winkube/winkube/pkg/network"
)

// snapshot is a Windows Server 2022 l2bridge node whose kube-proxy runs
// with DSR and a wrong --hostname-override (KP-7, KP-8), and a
// kube-proxy-less second Windows node (TS-1) without a pod CIDR (TS-8).
func snapshot() *network.Snapshot {
	win := func(name, ip, cidr string) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
				"kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": "10.0.20348"}},
			Spec:   corev1.NodeSpec{PodCIDR: cidr, PodCIDRs: []string{cidr}},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}}},
		}
	}
	other := win("win-2", "10.0.0.12", "")
	other.Labels["proxy"] = "none"
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-proxy-windows", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"kubernetes.io/os": "windows"},
			Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "proxy", Operator: corev1.NodeSelectorOpDoesNotExist}}}}}}},
			Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			Containers: []corev1.Container{{Name: "kube-proxy", Command: []string{"kube-proxy.exe"}, Args: []string{
				"--proxy-mode=kernelspace", "--network-name=cbr0", "--hostname-override=someone-else",
				"--feature-gates=WinDSR=true", "--enable-dsr=true"}}},
		}}},
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kube-flannel-cfg", Namespace: "kube-system"},
		Data: map[string]string{"net-conf.json": `{"Network": "10.244.0.0/16", "Backend": {"Type": "host-gw"}}`}}
	return &network.Snapshot{
		Nodes:      []*corev1.Node{win("win-1", "10.0.0.11", "10.244.1.0/24"), other},
		ConfigMaps: []*corev1.ConfigMap{cm},
		DaemonSets: []*appsv1.DaemonSet{ds},
		K8sMinor:   36,
	}
}

// rule: KP-7, KP-8, TS-1, TS-8
// There is one finding type: the network model's findings carry the rule
// book's severity, fix and see-also, so `winkube net hns` prints, for each,
// the fix doctor gives, and doctor adds only where it saw it.
func TestNetAndDoctorGiveTheSameFinding(t *testing.T) {
	snap := snapshot()
	m := network.Build(snap)
	report := doctor.Check(&doctor.State{Snapshot: snap})
	compared := 0
	for _, n := range m.Nodes {
		var out bytes.Buffer
		if err := (nodeView{n}).WriteText(&out); err != nil {
			t.Fatal(err)
		}
		for _, nf := range n.Findings {
			df, ok := doctorFinding(report, n.Name, nf.Message)
			if !ok {
				t.Errorf("%s %s: doctor does not report %q", n.Name, nf.Rule, nf.Message)
				continue
			}
			compared++
			if df.Severity != nf.Severity || df.Fix != nf.Fix || strings.Join(df.See, ",") != strings.Join(nf.See, ",") {
				t.Errorf("%s %s: doctor says %s / %q / %v, the model %s / %q / %v", n.Name, nf.Rule, df.Severity, df.Fix, df.See, nf.Severity, nf.Fix, nf.See)
			}
			if nf.Fix != "" && !strings.Contains(out.String(), "    fix: "+nf.Fix+"\n") {
				t.Errorf("%s %s: net hns does not print doctor's fix %q:\n%s", n.Name, nf.Rule, nf.Fix, out.String())
			}
		}
	}
	for _, rule := range []string{"KP-7", "KP-8", "TS-1", "TS-8"} {
		if !reported(m, rule) {
			t.Errorf("the scenario raises no %s; findings: %+v", rule, m.Nodes)
		}
	}
	if compared == 0 {
		t.Fatal("no finding compared")
	}
}

func doctorFinding(r *doctor.Report, node, message string) (doctor.Finding, bool) {
	for _, f := range r.Findings {
		if f.Message == message && len(f.Objects) > 0 && f.Objects[0].Name == node {
			return f, true
		}
	}
	return doctor.Finding{}, false
}

func reported(m *network.Model, rule string) bool {
	for _, n := range m.Nodes {
		for _, f := range n.Findings {
			if f.Rule == rule {
				return true
			}
		}
	}
	return false
}
