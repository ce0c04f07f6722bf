package doctor

import (
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/network"
	"github.com/winkube/winkube/pkg/windows"
)

// audit is the state with the indexes every check uses.
type audit struct {
	s      *State
	model  *network.Model
	nodes  map[string]*corev1.Node
	names  []string // node names, sorted
	podsOn map[string][]*corev1.Pod
	pods   map[string]*corev1.Pod // "namespace/name"
	leases map[string]*coordinationv1.Lease
}

func newAudit(s *State) *audit {
	if s == nil {
		s = &State{}
	}
	if s.Snapshot == nil {
		s.Snapshot = &network.Snapshot{}
	}
	a := &audit{s: s, model: network.Build(s.Snapshot), nodes: map[string]*corev1.Node{},
		podsOn: map[string][]*corev1.Pod{}, pods: map[string]*corev1.Pod{}, leases: map[string]*coordinationv1.Lease{}}
	for _, n := range s.Nodes {
		a.nodes[n.Name] = n
		a.names = append(a.names, n.Name)
	}
	sort.Strings(a.names)
	for _, p := range s.Pods {
		a.pods[p.Namespace+"/"+p.Name] = p
		if p.Spec.NodeName != "" {
			a.podsOn[p.Spec.NodeName] = append(a.podsOn[p.Spec.NodeName], p)
		}
	}
	for _, l := range s.Leases {
		a.leases[l.Name] = l
	}
	return a
}

func (a *audit) summary() Summary {
	sum := Summary{Nodes: len(a.s.Nodes), Pods: len(a.s.Pods), DaemonSets: len(a.s.AllDaemonSets)}
	for _, n := range a.s.Nodes {
		if isWindowsNode(n) {
			sum.WindowsNodes++
		}
	}
	return sum
}

// windowsNodes are the Windows nodes, sorted by name.
func (a *audit) windowsNodes() []*corev1.Node {
	var out []*corev1.Node
	for _, name := range a.names {
		if n := a.nodes[name]; isWindowsNode(n) {
			out = append(out, n)
		}
	}
	return out
}

// modelNode is the network model of a node.
func (a *audit) modelNode(name string) *network.Node {
	for _, n := range a.model.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// isWindowsNode reads the node's OS with the rule book's windows.HostOf.
func isWindowsNode(n *corev1.Node) bool {
	return n != nil && windows.HostOf(n).IsWindows()
}

// isWindowsPod: on a Windows node, or meant for one (spec.os or an OS
// node selector) while not yet scheduled.
func (a *audit) isWindowsPod(p *corev1.Pod) bool {
	if n, ok := a.nodes[p.Spec.NodeName]; ok {
		return isWindowsNode(n)
	}
	if p.Spec.OS != nil {
		return p.Spec.OS.Name == corev1.Windows
	}
	return p.Spec.NodeSelector[windows.LabelOS] == "windows"
}

// nodeBuild is a Windows node's build (zero when unknown), from
// windows.HostOf.
func nodeBuild(n *corev1.Node) windows.Build { return windows.HostOf(n).Build }

// describeNode is "win2022-1 (Windows Server 2022, 10.0.20348)".
func describeNode(n *corev1.Node) string {
	if !isWindowsNode(n) {
		return n.Name + " (Linux)"
	}
	b := nodeBuild(n)
	if b.IsZero() {
		return n.Name + " (Windows, build unknown)"
	}
	return n.Name + " (Windows " + b.Label() + ")"
}

func nodeObject(name string) Object { return Object{Kind: "Node", Name: name} }

func podObject(p *corev1.Pod) Object {
	return Object{Kind: "Pod", Namespace: p.Namespace, Name: p.Name}
}

// ownerObject is the pod's controller (DaemonSet, ReplicaSet, ...), or the
// pod itself.
func ownerObject(p *corev1.Pod) Object {
	for _, r := range p.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return Object{Kind: r.Kind, Namespace: p.Namespace, Name: r.Name}
		}
	}
	return podObject(p)
}

func dsObject(ds *appsv1.DaemonSet) Object {
	return Object{Kind: "DaemonSet", Namespace: ds.Namespace, Name: ds.Name}
}

// podReady reads the pod's Ready condition.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// containerTrouble words why a pod's containers are not running:
// "kube-proxy: CrashLoopBackOff: back-off ..." for the first that is not.
func containerTrouble(p *corev1.Pod) string {
	for _, cs := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "PodInitializing" {
			return strings.TrimSuffix(cs.Name+": "+w.Reason+": "+w.Message, ": ")
		}
		if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
			return strings.TrimSuffix(cs.Name+": "+t.Reason+": "+t.Message, ": ")
		}
	}
	if p.Status.Phase != "" {
		return "phase " + string(p.Status.Phase)
	}
	return "no status yet"
}

// containers lists a pod spec's init and regular containers.
func containers(spec *corev1.PodSpec) []*corev1.Container {
	var out []*corev1.Container
	for i := range spec.InitContainers {
		out = append(out, &spec.InitContainers[i])
	}
	for i := range spec.Containers {
		out = append(out, &spec.Containers[i])
	}
	return out
}

// uniqueSorted sorts and deduplicates.
func uniqueSorted(list []string) []string {
	sort.Strings(list)
	out := list[:0]
	for i, s := range list {
		if i == 0 || s != list[i-1] {
			out = append(out, s)
		}
	}
	return out
}
