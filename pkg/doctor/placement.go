package doctor

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	schedhelpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

// checkDaemonSets: a DaemonSet with fewer ready pods than desired whose
// images cannot run on some of the nodes it covers never gets ready there
// (SCH-5 for the wrong OS, IMG-4 for a Windows index without the node's
// build, IMG-2 for a build HCS refuses). Nodes where a pod of it is ready
// prove the catalog wrong and are left out.
func checkDaemonSets(a *audit) []Finding {
	var out []Finding
	for _, ds := range a.s.AllDaemonSets {
		if ds.Status.NumberReady >= ds.Status.DesiredNumberScheduled {
			continue
		}
		out = append(out, a.daemonSetFindings(ds)...)
	}
	return out
}

// cannotRun is why one image cannot run on some nodes.
type cannotRun struct {
	rule  string
	image string
	err   error
	nodes []string
}

// imageOn is the rule book's verdict on an image and a node.
func (a *audit) imageOn(image string, n *corev1.Node) windows.Verdict {
	return a.s.image(image).OnHost(windows.HostOf(n))
}

func (a *audit) daemonSetFindings(ds *appsv1.DaemonSet) []Finding {
	byKey := map[string]*cannotRun{}
	var order []string
	ready := a.readyDaemonPods(ds)
	for _, name := range a.names {
		n := a.nodes[name]
		if ready[name] || !covers(&ds.Spec.Template.Spec, n) {
			continue
		}
		pinsOS := windows.SelectedOS(&ds.Spec.Template.Spec) != ""
		for _, c := range containers(&ds.Spec.Template.Spec) {
			v := a.imageOn(c.Image, n)
			if v.Runs {
				continue
			}
			rule := v.RuleForPod(pinsOS)
			key := rule + " " + c.Image
			if byKey[key] == nil {
				byKey[key] = &cannotRun{rule: rule, image: c.Image, err: v.Err()}
				order = append(order, key)
			}
			// An image an init and a main container share fails once
			// per node, not once per container.
			if c := byKey[key]; !slices.Contains(c.nodes, name) {
				c.nodes = append(c.nodes, name)
			}
		}
	}
	var out []Finding
	for _, k := range order {
		out = append(out, a.daemonSetFinding(ds, byKey[k]))
	}
	return out
}

func (a *audit) daemonSetFinding(ds *appsv1.DaemonSet, c *cannotRun) Finding {
	objs := []Object{dsObject(ds)}
	for _, n := range c.nodes {
		objs = append(objs, nodeObject(n))
	}
	f := Finding{
		Finding: rules.New(c.rule, "",
			fmt.Sprintf("DaemonSet %s/%s can never be ready on %s: %v", ds.Namespace, ds.Name, a.describeNodes(c.nodes), c.err)).
			WithFix(placementFix(c.rule, &ds.Spec.Template.Spec, "spec.template.spec")),
		Objects: objs,
		Evidence: fmt.Sprintf("desired %d, ready %d; %s offers %s%s", ds.Status.DesiredNumberScheduled, ds.Status.NumberReady,
			c.image, platforms(a.s.image(c.image)), a.podEvidence(ds, c.nodes)),
	}
	return f
}

// readyDaemonPods: the nodes where a pod of ds is ready.
func (a *audit) readyDaemonPods(ds *appsv1.DaemonSet) map[string]bool {
	out := map[string]bool{}
	for _, p := range a.s.Pods {
		if p.Namespace == ds.Namespace && ownerObject(p) == dsObject(ds) && podReady(p) {
			out[p.Spec.NodeName] = true
		}
	}
	return out
}

// podEvidence quotes the first failing pod of ds on one of the nodes.
func (a *audit) podEvidence(ds *appsv1.DaemonSet, nodes []string) string {
	for _, name := range nodes {
		for _, p := range a.podsOn[name] {
			if ownerObject(p) == dsObject(ds) && !podReady(p) {
				return fmt.Sprintf("; pod %s on %s: %s", p.Name, name, containerTrouble(p))
			}
		}
	}
	return ""
}

// covers reports whether a pod with spec may run on node: node selector,
// required node affinity, and tolerations for its NoSchedule and NoExecute
// taints (what the DaemonSet controller checks).
func covers(spec *corev1.PodSpec, n *corev1.Node) bool {
	for k, v := range spec.NodeSelector {
		if n.Labels[k] != v {
			return false
		}
	}
	if ok, err := nodeaffinity.GetRequiredNodeAffinity(&corev1.Pod{Spec: *spec}).Match(n); err != nil || !ok {
		return false
	}
	_, untolerated := schedhelpers.FindMatchingUntoleratedTaint(klog.Background(), n.Spec.Taints, spec.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, false)
	return !untolerated
}

// placementFix says how to keep a workload off the nodes its image does
// not run on.
func placementFix(rule string, spec *corev1.PodSpec, path string) string {
	switch rule {
	case "SCH-5":
		fix := fmt.Sprintf("pin it to the OS its image is built for: %s.nodeSelector kubernetes.io/os: linux (PLAN-2) or windows", path)
		if tolerateAll(spec) {
			fix += fmt.Sprintf("; its %s.tolerations hold an entry with operator Exists and no key, which also tolerates the Windows nodes' os=windows:NoSchedule taint (SCH-3): narrow it", path)
		}
		return fix
	case "IMG-2":
		return fmt.Sprintf("select nodes whose build the image offers with %s.nodeSelector node.kubernetes.io/windows-build, or use an image tag built for the node's build", path)
	case "IMG-4":
		return fmt.Sprintf("use an image built for the OS and architecture %s.nodeSelector selects, or select the ones the image is built for (kubernetes.io/os, kubernetes.io/arch)", path)
	}
	return ""
}

func tolerateAll(spec *corev1.PodSpec) bool {
	for _, t := range spec.Tolerations {
		if t.Key == "" && t.Operator == corev1.TolerationOpExists {
			return true
		}
	}
	return false
}

// describeNodes is "win2019-1 (Windows Server 2019, 10.0.17763), ..." for
// up to three nodes, then a count.
func (a *audit) describeNodes(names []string) string {
	var parts []string
	for i, name := range names {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(names)-3))
			break
		}
		parts = append(parts, describeNode(a.nodes[name]))
	}
	return strings.Join(parts, ", ")
}

// checkPodPlacement: pods that failed on their node for a platform reason
// (ErrImagePull "no match for platform", CreateContainerError,
// RunContainerError or StartError "operating system does not match"),
// grouped by workload and image. Pods of a DaemonSet checkDaemonSets
// reported are left out.
func checkPodPlacement(a *audit) []Finding {
	reported := map[Object]bool{}
	for _, ds := range a.s.AllDaemonSets {
		if ds.Status.NumberReady < ds.Status.DesiredNumberScheduled && len(a.daemonSetFindings(ds)) > 0 {
			reported[dsObject(ds)] = true
		}
	}
	groups := map[string]*podFailure{}
	var order []string
	for _, p := range a.s.Pods {
		n := a.nodes[p.Spec.NodeName]
		if n == nil || reported[ownerObject(p)] {
			continue
		}
		for _, cf := range platformFailures(p) {
			rule, cause := a.podRule(cf, n, &p.Spec)
			key := rule + " " + ownerObject(p).String() + " " + cf.image
			if groups[key] == nil {
				groups[key] = &podFailure{rule: rule, cause: cause, owner: ownerObject(p), spec: &p.Spec, first: cf, pod: p}
				order = append(order, key)
			}
			groups[key].nodes = append(groups[key].nodes, n.Name)
			groups[key].pods++
		}
	}
	sort.Strings(order)
	var out []Finding
	for _, k := range order {
		out = append(out, a.podFailureFinding(groups[k]))
	}
	return out
}

// containerFailure is one container's platform failure.
type containerFailure struct {
	container, image, reason, message string
}

type podFailure struct {
	rule  string
	cause windows.Cause
	owner Object
	spec  *corev1.PodSpec
	first containerFailure
	pod   *corev1.Pod
	nodes []string
	pods  int
}

// platformFailures reads the pod's container statuses for platform
// failures, in the current state or the last termination.
func platformFailures(p *corev1.Pod) []containerFailure {
	var out []containerFailure
	for _, cs := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		for _, rm := range statusMessages(cs) {
			if platformFailure(rm[1]) {
				out = append(out, containerFailure{container: cs.Name, image: cs.Image, reason: rm[0], message: rm[1]})
				break
			}
		}
	}
	return out
}

// statusMessages are a container status's (reason, message) pairs.
func statusMessages(cs corev1.ContainerStatus) [][2]string {
	var out [][2]string
	if w := cs.State.Waiting; w != nil {
		out = append(out, [2]string{w.Reason, w.Message})
	}
	for _, t := range []*corev1.ContainerStateTerminated{cs.State.Terminated, cs.LastTerminationState.Terminated} {
		if t != nil {
			out = append(out, [2]string{t.Reason, t.Message})
		}
	}
	return out
}

// podRule is the rule book's verdict on the image and the node (SCH-5
// for an image of the other OS on a pod that pins none). When the catalog
// thinks the image fits, the runtime's words decide: HCS refusing the
// build is IMG-2, a failed pull IMG-4.
func (a *audit) podRule(cf containerFailure, n *corev1.Node, spec *corev1.PodSpec) (string, windows.Cause) {
	if v := a.imageOn(cf.image, n); !v.Runs {
		return v.RuleForPod(windows.SelectedOS(spec) != ""), v.Cause
	}
	if stage, _ := windows.FailureStage(cf.message); stage == windows.StageStart {
		return "IMG-2", windows.CauseBuild
	}
	return "IMG-4", windows.CauseArch
}

func (a *audit) podFailureFinding(g *podFailure) Finding {
	nodes := uniqueSorted(g.nodes)
	objs := []Object{g.owner}
	for _, n := range nodes {
		objs = append(objs, nodeObject(n))
	}
	what := map[windows.Cause]string{
		windows.CauseOS:    "is built for another OS than",
		windows.CauseArch:  "has no entry for the platform of",
		windows.CauseBuild: "is built for another Windows build than",
	}[g.cause]
	return Finding{
		Finding:  rules.New(g.rule, "", fmt.Sprintf("%s: image %s %s %s, so %d pod(s) fail there", g.owner, g.first.image, what, a.describeNodes(nodes), g.pods)).WithFix(placementFix(g.rule, g.spec, "the pod template's spec")),
		Objects:  objs,
		Evidence: fmt.Sprintf("pod %s container %s: %s: %s", g.pod.Name, g.first.container, g.first.reason, g.first.message),
	}
}
