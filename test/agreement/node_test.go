package agreement

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	schedhelpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/winkube/winkube/pkg/doctor"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/network"
	"github.com/winkube/winkube/pkg/windows"
)

// scheduled is the pod spec the scheduler sees: the RuntimeClass's
// scheduling merged in, as the RuntimeClass admission plugin does (SCH-4).
func scheduled(spec *corev1.PodSpec, classes map[string]*nodev1.RuntimeClass) *corev1.PodSpec {
	out := spec.DeepCopy()
	if spec.RuntimeClassName == nil {
		return out
	}
	rc := classes[*spec.RuntimeClassName]
	if rc == nil || rc.Scheduling == nil {
		return out
	}
	if len(rc.Scheduling.NodeSelector) > 0 && out.NodeSelector == nil {
		out.NodeSelector = map[string]string{}
	}
	for k, v := range rc.Scheduling.NodeSelector {
		out.NodeSelector[k] = v
	}
	out.Tolerations = append(out.Tolerations, rc.Scheduling.Tolerations...)
	return out
}

// landsOn are the nodes the scheduler may put a pod of spec on: its node
// name, node selector, required affinity and NoSchedule/NoExecute taints.
func landsOn(spec *corev1.PodSpec, all []*corev1.Node) []*corev1.Node {
	var out []*corev1.Node
	for _, n := range all {
		if spec.NodeName != "" && spec.NodeName != n.Name {
			continue
		}
		if ok, err := nodeaffinity.GetRequiredNodeAffinity(&corev1.Pod{Spec: *spec}).Match(n); err != nil || !ok {
			continue
		}
		_, untolerated := schedhelpers.FindMatchingUntoleratedTaint(klog.Background(), n.Spec.Taints, spec.Tolerations, func(t *corev1.Taint) bool {
			return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
		}, false)
		if !untolerated {
			out = append(out, n)
		}
	}
	return out
}

// nodeRun is what an emulated node does with one pod: the runtime's pull
// and start (imageinfo.PullPlatform and StartsOn, the functions its CRI
// calls) give the container statuses; the rule is the rule book's for
// the failure (Verdict.RuleForPod).
type nodeRun struct {
	statuses []corev1.ContainerStatus
	rules    map[string]bool
	ready    bool
}

// runOn runs the pod's containers on node n. Images outside the catalog
// are left out: lint does not guess what they offer (IMG-3), while the
// node has to pull something and takes them for linux/amd64.
// The node reads images through images, as the node agents do.
func runOn(t *testing.T, spec *corev1.PodSpec, n *corev1.Node, images imageinfo.Resolver) nodeRun {
	t.Helper()
	run := nodeRun{rules: map[string]bool{}, ready: true}
	h := windows.HostOf(n)
	pins := windows.SelectedOS(spec) != ""
	for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		img := images.Resolve(context.Background(), imageinfo.Request{Ref: c.Image}).Image
		if !img.Cataloged || img.Missing != nil {
			continue
		}
		cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image}
		v := img.OnHost(h)
		entry, err := imageinfo.PullPlatform(img, h.Runtime, h.OS, h.Arch, h.Build)
		starts := err == nil && imageinfo.StartsOn(entry, h.Build)
		if starts != v.Runs {
			t.Errorf("%s on %s: the runtime's pull and start say runs=%v, the verdict %v", c.Image, n.Name, starts, v.Runs)
		}
		switch {
		case err != nil:
			cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ErrImagePull",
				Message: "rpc error: code = NotFound desc = failed to pull and unpack image \"" + img.Ref() + "\": " + v.Words}
		case !starts:
			cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}
			cs.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{Reason: "StartError", ExitCode: 128,
				Message: "failed to create containerd task: hcs::CreateComputeSystem: " + v.Words + ": unknown"}
		default:
			cs.State.Running = &corev1.ContainerStateRunning{}
			cs.Ready = true
		}
		if !v.Runs {
			run.rules[v.RuleForPod(pins)] = true
			run.ready = false
		}
		run.statuses = append(run.statuses, cs)
	}
	return run
}

// fleet is every workload of one input run on the nodes it lands on: the
// emulated nodes' verdicts per object, and the pods and DaemonSets as the
// API then shows them to doctor.
type fleet struct {
	node  verdicts
	state *doctor.State
}

func runFleet(t *testing.T, ws []*workload, all []*corev1.Node, classes map[string]*nodev1.RuntimeClass) fleet {
	return runFleetWith(t, ws, all, classes, imageinfo.CatalogResolver{})
}

// runFleetWith is runFleet with the nodes and doctor reading images
// through images.
func runFleetWith(t *testing.T, ws []*workload, all []*corev1.Node, classes map[string]*nodev1.RuntimeClass, images imageinfo.Resolver) fleet {
	f := fleet{node: verdicts{}, state: &doctor.State{Snapshot: &network.Snapshot{Nodes: all}, Images: images}}
	for _, w := range ws {
		spec := scheduled(w.spec, classes)
		ready := 0
		on := landsOn(spec, all)
		for i, n := range on {
			run := runOn(t, spec, n, images)
			for r := range run.rules {
				f.node.add(w.key(), r)
			}
			p := w.podOf(n.Name, i)
			p.Status.ContainerStatuses = run.statuses
			cond := corev1.ConditionFalse
			if run.ready {
				cond = corev1.ConditionTrue
				ready++
			}
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: cond}}
			f.state.Pods = append(f.state.Pods, p)
		}
		if w.kind == "DaemonSet" {
			ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: orDefault(w.namespace), Name: w.name},
				Spec:   appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: *spec}},
				Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: int32(len(on)), NumberReady: int32(ready)}}
			f.state.AllDaemonSets = append(f.state.AllDaemonSets, ds)
		}
	}
	return f
}

// doctorVerdicts are doctor's placement findings on that state, by the
// workload they name.
func doctorVerdicts(s *doctor.State) verdicts {
	out := verdicts{}
	for _, f := range doctor.Check(s).Findings {
		if !placementRule(f.Rule) || len(f.Objects) == 0 {
			continue
		}
		o := f.Objects[0]
		out.add(objectKey(o.Kind, o.Namespace, o.Name), f.Rule)
	}
	return out
}

func orDefault(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}
