package doctor

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// podGroup is the pods of one workload that show one cause in the same
// place of their spec: the replicas of a Deployment share a template, so
// they are reported once, with the count, not once per pod.
type podGroup struct {
	workload Object
	cause    string // what the pods do, e.g. "ping"
	where    string // where in the spec, e.g. "container main liveness probe"
	text     string // the text there
	pods     []*corev1.Pod
}

// podGroups keeps groups in the order their first pod was seen, so the
// report is stable.
type podGroups struct {
	byKey map[string]*podGroup
	list  []*podGroup
}

func newPodGroups() *podGroups { return &podGroups{byKey: map[string]*podGroup{}} }

// add files a pod under its workload and cause.
func (gs *podGroups) add(p *corev1.Pod, t podText, cause string) {
	w := workloadObject(p)
	key := strings.Join([]string{w.String(), cause, t.where, t.text}, "\x00")
	g, ok := gs.byKey[key]
	if !ok {
		g = &podGroup{workload: w, cause: cause, where: t.where, text: t.text}
		gs.byKey[key] = g
		gs.list = append(gs.list, g)
	}
	g.pods = append(g.pods, p)
}

// bare reports whether the group is a single pod no controller owns.
func (g *podGroup) bare() bool { return g.workload.Kind == "Pod" }

// subject names the group in a message: "Windows pod shop/x", or
// "Deployment shop/web (250 Windows pods)".
func (g *podGroup) subject(what string) string {
	if g.bare() {
		return fmt.Sprintf("%s %s/%s", what, g.workload.Namespace, g.workload.Name)
	}
	n := len(g.pods)
	plural := "s"
	if n == 1 {
		plural = ""
	}
	return fmt.Sprintf("%s (%d %s%s)", g.workload, n, what, plural)
}

// objects are the workload and the first pod, which shows the evidence.
func (g *podGroup) objects() []Object {
	if g.bare() {
		return []Object{g.workload}
	}
	return []Object{g.workload, podObject(g.pods[0])}
}

// evidence quotes the spec text, naming the pod it was read from.
func (g *podGroup) evidence() string {
	if g.bare() {
		return g.where + ": " + g.text
	}
	return fmt.Sprintf("pod %s %s: %s", g.pods[0].Name, g.where, g.text)
}

// workloadObject is the workload that made the pod: the Deployment for a
// pod of one of its ReplicaSets (the Deployment controller names them
// <deployment>-<pod-template-hash>), else the pod's controller
// (DaemonSet, StatefulSet, Job, ...), else the pod itself.
func workloadObject(p *corev1.Pod) Object {
	o := ownerObject(p)
	if o.Kind != "ReplicaSet" {
		return o
	}
	if hash := p.Labels["pod-template-hash"]; hash != "" {
		if name, ok := strings.CutSuffix(o.Name, "-"+hash); ok && name != "" {
			return Object{Kind: "Deployment", Namespace: o.Namespace, Name: name}
		}
	}
	return o
}
