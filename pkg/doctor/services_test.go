package doctor

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// rule: KP-7
// The NodePort issue is reported per Service, for the Windows Server 2022
// overlay nodes its backend pods run on, not per node receiving the
// traffic: a NodePort Service whose pods run on Windows Server 2019 gets
// none, though the cluster has a 2022 node.
func TestNodePortIssuePerService(t *testing.T) {
	for _, tc := range []struct {
		node string
		want bool
	}{{"win2022-1", true}, {"win2019-1", false}} {
		s := healthy()
		web := s.Services[2]
		web.Spec.Type = corev1.ServiceTypeNodePort
		web.Spec.Selector = map[string]string{"app": "web"}
		p := runningPod("shop", "web-1", tc.node, "mcr.microsoft.com/windows/servercore/iis", "")
		p.Labels = map[string]string{"app": "web"}
		s.Pods = append(s.Pods, p)
		var kp7 []Finding
		for _, f := range Check(s).Findings {
			if f.Rule == "KP-7" {
				kp7 = append(kp7, f)
			}
		}
		switch {
		case !tc.want && len(kp7) > 0:
			t.Errorf("backend on %s: %v", tc.node, kp7)
		case tc.want && (len(kp7) != 1 || kp7[0].Objects[0] != (Object{Kind: "Service", Namespace: "shop", Name: "web"}) ||
			!strings.Contains(kp7[0].Message, "(win2022-1)") || !strings.Contains(kp7[0].Evidence, "web-1 on win2022-1")):
			t.Errorf("backend on %s: %+v, want one KP-7 on Service shop/web naming win2022-1", tc.node, kp7)
		}
	}
}
