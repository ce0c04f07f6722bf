package deploy

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func pod(phase corev1.PodPhase, mutate func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{Spec: corev1.PodSpec{NodeName: "win2019-1"}, Status: corev1.PodStatus{Phase: phase}}
	if mutate != nil {
		mutate(p)
	}
	return p
}

func waiting(reason string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}}}
	}
}

func TestStatusAndSettled(t *testing.T) {
	ready := func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	}
	unschedulable := func(p *corev1.Pod) {
		p.Spec.NodeName = ""
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
	}
	rejected := func(p *corev1.Pod) { p.Status.Reason = "PodOSNotSupported" }
	cases := []struct {
		name    string
		pod     *corev1.Pod
		status  string
		settled bool
	}{
		{"creating", pod(corev1.PodPending, nil), "ContainerCreating", false},
		{"running not ready", pod(corev1.PodRunning, nil), "Running", false},
		{"running ready", pod(corev1.PodRunning, ready), "Running", true},
		{"image pull backoff", pod(corev1.PodPending, waiting("ImagePullBackOff")), "ImagePullBackOff", true},
		{"wrong build", pod(corev1.PodPending, waiting("CreateContainerError")), "CreateContainerError", true},
		{"unschedulable", pod(corev1.PodPending, unschedulable), "Pending (Unschedulable)", true},
		{"rejected by kubelet", pod(corev1.PodFailed, rejected), "PodOSNotSupported", true},
		{"completed", pod(corev1.PodSucceeded, nil), "Completed", true},
	}
	for _, c := range cases {
		if got := Status(c.pod); got != c.status {
			t.Errorf("%s: Status = %q, want %q", c.name, got, c.status)
		}
		if got := Settled(c.pod); got != c.settled {
			t.Errorf("%s: Settled = %v, want %v", c.name, got, c.settled)
		}
	}
}

func TestWorkloadOf(t *testing.T) {
	cases := []struct {
		doc      string
		ok       bool
		want     int
		selector string
	}{
		{"kind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2, selector: {matchLabels: {app: web}}}", true, 2, "app=web"},
		{"kind: Deployment\nmetadata: {name: web}\nspec: {selector: {matchLabels: {app: web}}}", true, 1, "app=web"},
		{"kind: Deployment\nmetadata: {name: web}\nspec: {replicas: 0, selector: {matchLabels: {app: web}}}", false, 0, ""},
		{"kind: ReplicationController\nmetadata: {name: rc}\nspec: {replicas: 3, selector: {app: rc}}", true, 3, "app=rc"},
		{"kind: DaemonSet\nmetadata: {name: ds}\nspec: {selector: {matchExpressions: [{key: app, operator: In, values: [ds]}]}}", true, 1, "app in (ds)"},
		{"kind: Service\nmetadata: {name: svc}\nspec: {selector: {app: web}}", false, 0, ""},
		{"kind: Pod\nmetadata: {name: p}", true, 1, ""},
	}
	for _, c := range cases {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(c.doc), &obj.Object); err != nil {
			t.Fatal(err)
		}
		w, ok := WorkloadOf(obj)
		if ok != c.ok {
			t.Errorf("%q: ok = %v", c.doc, ok)
			continue
		}
		if ok && (w.Want != c.want || w.Selector.String() != c.selector) {
			t.Errorf("%q: want %d selector %q, got %d %q", c.doc, c.want, c.selector, w.Want, w.Selector)
		}
	}
}
