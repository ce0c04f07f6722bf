package service

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/windows"
)

type hit struct{ Rule, Path string }

func hits(vs []windows.Violation) []hit {
	var out []hit
	for _, v := range vs {
		if v.Message == "" || v.Fix == "" || v.Severity == 0 {
			panic("violation without message, fix or severity: " + v.String())
		}
		out = append(out, hit{v.Rule, v.Path})
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func b(build, rev int) windows.Build { return windows.Build{Major: 10, Build: build, Revision: rev} }

func svc(mut func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP}}
	if mut != nil {
		mut(s)
	}
	return s
}

func TestLimitations(t *testing.T) {
	tests := []struct {
		name string
		svc  *corev1.Service
		opts Options
		want []hit
	}{
		{"clean", svc(nil), Options{K8sMinor: 27, Backends: 10}, nil},
		{"nil", nil, Options{}, nil},
		// rule: LIM-10
		{"affinity timeout", svc(func(s *corev1.Service) {
			s.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr(int32(600))}}
		}), Options{}, []hit{{"LIM-10", "spec.sessionAffinityConfig.clientIP.timeoutSeconds"}}},
		// rule: LIM-11
		{"64 backends ok", svc(nil), Options{K8sMinor: 27, Backends: 64}, nil},
		{"65 backends on 1.27", svc(nil), Options{K8sMinor: 27, Backends: 65}, []hit{{"LIM-11", "spec"}}},
		{"65 backends on 1.35", svc(nil), Options{K8sMinor: 35, Backends: 65}, nil},
		{"1025 backends on 1.36", svc(nil), Options{K8sMinor: 36, Backends: 1025}, []hit{{"LIM-11", "spec"}}},
		// rule: LIM-12
		{"Local without DSR", svc(func(s *corev1.Service) {
			s.Spec.Type = corev1.ServiceTypeClusterIP
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
		}), Options{}, []hit{{"LIM-12", "spec.externalTrafficPolicy"}}},
		{"Local with DSR", svc(func(s *corev1.Service) {
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
		}), Options{DSR: true}, nil},
		// rule: LIM-13
		{"IPv6 only", svc(func(s *corev1.Service) { s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol} }),
			Options{NetworkMode: NetworkL2Bridge}, []hit{{"LIM-13", "spec.ipFamilies"}}},
		{"dual-stack on l2bridge", svc(func(s *corev1.Service) {
			s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
		}), Options{NetworkMode: NetworkL2Bridge}, nil},
		{"dual-stack on overlay", svc(func(s *corev1.Service) {
			s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
		}), Options{NetworkMode: NetworkOverlay}, []hit{{"LIM-13", "spec.ipFamilies"}}},
		{"require dual-stack on overlay", svc(func(s *corev1.Service) {
			s.Spec.IPFamilyPolicy = ptr(corev1.IPFamilyPolicyRequireDualStack)
		}), Options{NetworkMode: NetworkOverlay}, []hit{{"LIM-13", "spec.ipFamilies"}}},
		// rule: LIM-16
		{"NodePort advice", svc(func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeNodePort }), Options{},
			[]hit{{"LIM-16", "spec.type"}}},
		// rule: KP-5
		{"affinity on 2019", svc(func(s *corev1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP }),
			Options{NodeBuild: b(17763, 5329)}, []hit{{"KP-5", "spec.sessionAffinity"}}},
		{"affinity on 2022", svc(func(s *corev1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP }),
			Options{NodeBuild: b(20348, 1)}, nil},
		{"preserve-destination on 2019", svc(func(s *corev1.Service) {
			s.Annotations = map[string]string{"preserve-destination": "true"}
		}), Options{DSR: true, NodeBuild: b(17763, 1)}, []hit{{"KP-5", "metadata.annotations[preserve-destination]"}}},
		{"DSR and client IP on 2016", svc(func(s *corev1.Service) {
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
		}), Options{DSR: true, NodeBuild: b(14393, 1)}, []hit{{"KP-5", "spec"}, {"KP-5", "spec.externalTrafficPolicy"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hits(Limitations(tt.svc, tt.opts)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

// rule: KP-7
// The NodePort issue is the destination node's: it applies when a
// backend's node is Windows Server 2022 on overlay and the Service keeps
// externalTrafficPolicy Cluster; the fix never leads into LIM-12.
func TestOverlayNodePortIssue(t *testing.T) {
	ws2022 := BackendNode{Name: "win2022-1", Build: b(20348, 2227), NetworkMode: NetworkOverlay}
	ws2019 := BackendNode{Name: "win2019-1", Build: b(17763, 5329), NetworkMode: NetworkOverlay}
	l2bridge := BackendNode{Name: "win2022-2", Build: b(20348, 2227), NetworkMode: NetworkL2Bridge}
	nodePort := corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort}
	local := corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal}
	clusterIP := corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP}
	for _, tc := range []struct {
		name  string
		spec  corev1.ServiceSpec
		nodes []BackendNode
		want  bool
	}{
		{"backend on 2022 overlay", nodePort, []BackendNode{ws2019, ws2022}, true},
		{"backends on 2019 only", nodePort, []BackendNode{ws2019}, false},
		{"2022 on l2bridge", nodePort, []BackendNode{l2bridge}, false},
		{"Local", local, []BackendNode{ws2022}, false},
		{"no NodePort", clusterIP, []BackendNode{ws2022}, false},
		{"no backends", nodePort, nil, false},
	} {
		v := OverlayNodePortIssue(&tc.spec, tc.nodes, false)
		if (v != nil) != tc.want {
			t.Errorf("%s: %v, want a finding %v", tc.name, v, tc.want)
			continue
		}
		if v != nil && (!strings.Contains(v.Message, "(win2022-1)") || !strings.Contains(v.Fix, "never Local alone")) {
			t.Errorf("%s: %+v", tc.name, v)
		}
	}
	if v := OverlayNodePortIssue(&nodePort, []BackendNode{ws2022}, true); !strings.HasPrefix(v.Fix, "set spec.externalTrafficPolicy: Local") {
		t.Errorf("with DSR: fix %q", v.Fix)
	}
}
