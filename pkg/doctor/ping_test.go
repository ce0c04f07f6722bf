package doctor

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// rule: TS-3
// The 250 replicas of one Deployment that ping share a template: one TS-3
// naming the Deployment and the count, not one per pod.
func TestPingReportedOncePerDeployment(t *testing.T) {
	s := healthy()
	for i := range 250 {
		p := runningPod("shop", fmt.Sprintf("web-7d9c-%d", i), "win2022-1", "mcr.microsoft.com/windows/servercore:ltsc2022", "")
		p.Labels = map[string]string{"pod-template-hash": "7d9c"}
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-7d9c", Controller: ptr.To(true)}}
		p.Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"ping", "-n", "1", "8.8.8.8"}}}}
		s.Pods = append(s.Pods, p)
	}
	var ts3 []Finding
	for _, f := range Check(s).Findings {
		if f.Rule == "TS-3" {
			ts3 = append(ts3, f)
		}
	}
	if len(ts3) != 1 {
		t.Fatalf("%d TS-3 findings, want 1", len(ts3))
	}
	f := ts3[0]
	if f.Objects[0].String() != "Deployment shop/web" || !strings.Contains(f.Message, "250 Windows pods") || !strings.Contains(f.Evidence, "ping -n 1 8.8.8.8") {
		t.Errorf("TS-3 objects %v, message %q, evidence %q; want the Deployment, the count and the command", f.Objects, f.Message, f.Evidence)
	}
}

// rule: TS-3, LIM-17
// A ping that stays on the node leaves nothing, so ICMP's limits do not
// apply; one that may leave the node does.
func TestPingsOffNode(t *testing.T) {
	cases := map[string]bool{
		"ping -t localhost":                       false,
		"cmd /c ping 127.0.0.1 -n 3 > nul":        false,
		"Test-Connection -ComputerName localhost": false,
		"ping ::1":          false,
		"ping -n 1 8.8.8.8": true,
		"ping -n 1 localhost & ping -n 1 10.0.0.5":   true,
		`C:\Windows\System32\PING.EXE web.shop`:      true,
		"ping $TARGET":                               true,
		"powershell Test-Connection www.example.com": true,
		"echo pinging is fine":                       false,
	}
	for text, want := range cases {
		if _, got := pingsOffNode(text); got != want {
			t.Errorf("pingsOffNode(%q) = %v, want %v", text, got, want)
		}
	}
}
