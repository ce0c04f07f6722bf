package admission

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func testNode(os string, taints ...corev1.Taint) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{corev1.LabelOSStable: os}},
		Spec:       corev1.NodeSpec{Taints: taints},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("4"),
			corev1.ResourceMemory: resource.MustParse("4Gi"),
			corev1.ResourcePods:   resource.MustParse("2"),
		}},
	}
}

func requesting(cpu, mem string) *corev1.Pod {
	req := corev1.ResourceList{}
	if cpu != "" {
		req[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		req[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	return &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: req}}}}}
}

// rule: KLT-4
func TestAdmitOrderAndMessages(t *testing.T) {
	noExec := corev1.Taint{Key: "k", Value: "v", Effect: corev1.TaintEffectNoExecute}
	osLabel := func(p *corev1.Pod, os string) *corev1.Pod {
		p.Labels = map[string]string{corev1.LabelOSStable: os}
		return p
	}
	osField := func(p *corev1.Pod, os corev1.OSName) *corev1.Pod { p.Spec.OS = &corev1.PodOS{Name: os}; return p }
	selector := func(p *corev1.Pod) *corev1.Pod { p.Spec.NodeSelector = map[string]string{"disk": "ssd"}; return p }
	cases := []struct {
		name    string
		pod     *corev1.Pod
		node    *corev1.Node
		others  []*corev1.Pod
		reason  string
		message string
	}{
		{"no node", requesting("", ""), nil, nil, "InvalidNodeInfo", "Kubelet cannot get node info."},
		// The label check comes before the OS field check, and both before resources.
		{"label before field", osField(osLabel(requesting("64", ""), "linux"), corev1.Linux), testNode("windows"), nil,
			"PodOSSelectorNodeLabelDoesNotMatch", "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label"},
		{"field", osField(requesting("64", ""), corev1.Linux), testNode("windows"), nil,
			"PodOSNotSupported", "Failed to admit pod as the OS field doesn't match node OS"},
		{"matching os passes", osField(osLabel(requesting("1", ""), "windows"), corev1.Windows), testNode("windows"), nil, "", ""},
		// Pods first, then cpu, then memory; resources before affinity and taints.
		{"too many pods", selector(requesting("64", "")), testNode("windows", noExec), []*corev1.Pod{requesting("", ""), requesting("", "")},
			"OutOfpods", "Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2"},
		{"cpu before memory", requesting("3", "4Gi"), testNode("windows"), []*corev1.Pod{requesting("1500m", "1Gi")},
			"OutOfcpu", "Node didn't have enough resource: cpu, requested: 3000, used: 1500, capacity: 4000"},
		{"memory", requesting("1", "4Gi"), testNode("windows"), []*corev1.Pod{requesting("", "1Gi")},
			"OutOfmemory", "Node didn't have enough resource: memory, requested: 4294967296, used: 1073741824, capacity: 4294967296"},
		{"affinity before taints", selector(requesting("", "")), testNode("windows", noExec), nil,
			"NodeAffinity", "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector"},
		{"untolerated NoExecute", requesting("", ""), testNode("windows", noExec), nil,
			"TaintToleration", "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate"},
		// NoSchedule taints are the scheduler's business, not the kubelet's.
		{"NoSchedule ignored", requesting("", ""), testNode("windows", corev1.Taint{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}), nil, "", ""},
		// LIM-8: Windows nodes have no hugepages.
		{"hugepages", func() *corev1.Pod {
			p := requesting("", "")
			p.Spec.Containers[0].Resources.Requests["hugepages-2Mi"] = resource.MustParse("4Mi")
			return p
		}(), testNode("windows"), nil, "OutOfhugepages-2Mi", "Node didn't have enough resource: hugepages-2Mi, requested: 4194304, used: 0, capacity: 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			os := "windows"
			r := Admit(c.pod, c.node, os, c.others)
			if r.Admit != (c.reason == "") || r.Reason != c.reason || r.Message != c.message {
				t.Errorf("admit = %+v, want reason %q message %q", r, c.reason, c.message)
			}
		})
	}
}

func TestHostPortConflict(t *testing.T) {
	withPort := func(ip string) *corev1.Pod {
		p := requesting("", "")
		p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 8080, HostIP: ip}}
		return p
	}
	r := Admit(withPort(""), testNode("linux"), "linux", []*corev1.Pod{withPort("10.0.0.1")})
	if r.Reason != "NodePorts" || r.Message != "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports" {
		t.Errorf("admit = %+v", r)
	}
}
