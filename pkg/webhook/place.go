package webhook

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/winkube/winkube/pkg/windows"
)

// place decides what the pod needs.
func (h *Handler) place(pod *corev1.Pod, images []podImage) *placement {
	p := &placement{}
	oses := imageOSes(images)
	if oses == nil {
		return p
	}
	if len(oses) == 0 {
		p.refusal = mixedImages(images)
		return p
	}
	s := h.scheduling(pod)
	pinned := map[string]bool{}
	for _, pin := range s.osPins(pod) {
		if !oses[pin.os] {
			p.refusal = wrongOS(pin, images)
			return p
		}
		pinned[pin.os] = true
	}
	switch {
	case len(pinned) == 1:
		oses = pinned
	case len(pinned) > 1:
		return p // the pod's own fields disagree; the kubelet refuses it (KLT-4)
	case len(oses) != 1:
		return p // the images run on either OS and the pod chose none
	}
	for os := range oses {
		p.os = os
	}
	hostProcess := p.os == "windows" && windows.IsHostProcessPod(&pod.Spec)
	hosts := &hostChecks{}
	nodes := h.cluster.nodeList()
	if len(pinned) == 0 && nodes != nil && !runsSomewhere(nodes, p.os, images, hostProcess, hosts) {
		return &placement{warnings: unplaced(s, images, nodes)}
	}
	if p.os == "windows" && !hostProcess {
		if p.refusal = pinnedBuildsRefusal(s, images); p.refusal != nil {
			return p
		}
	}
	if nodes != nil {
		h.placeOnNodes(p, s, images, nodes, hostProcess, hosts)
		if p.refusal != nil {
			return p
		}
	}
	p.reason = describeImages(images, p.os, p.builds, hostProcess)
	if _, ok := s.spec.NodeSelector[corev1.LabelOSStable]; !ok {
		p.selectOS = true
		p.rules = append(p.rules, "SCH-5")
	}
	if len(p.builds) > 0 {
		p.rules = append(p.rules, "IMG-2")
	}
	if p.os == "windows" && h.s.taint != nil && !corev1helpers.TolerationsTolerateTaint(klog.Background(), s.spec.Tolerations, h.s.taint, true) {
		t := tolerationFor(*h.s.taint)
		p.toleration = &t
		p.rules = append(p.rules, "SCH-3")
	}
	h.decideSpecOS(p, pod)
	return p
}

// decideSpecOS sets spec.os.name when the cluster keeps the field (1.24+,
// API-8) and when setting it does not make the API server reject the pod
// (API-2..4 apply once spec.os is set).
func (h *Handler) decideSpecOS(p *placement, pod *corev1.Pod) {
	if pod.Spec.OS != nil || !windows.OSFieldEnforced(h.cluster.kubernetesMinor()) {
		return
	}
	spec := pod.Spec
	spec.OS = &corev1.PodOS{Name: corev1.OSName(p.os)}
	path := field.NewPath("spec")
	opts := windows.ValidationOptions{AllowPrivileged: true}
	// Only the errors setting the field adds count. Most pods have none
	// with it set, so the check without it runs only when there are some.
	if after := windows.ValidatePodSpecOSWithOptions(&spec, path, opts); len(after) > 0 {
		if before := len(windows.ValidatePodSpecOSWithOptions(&pod.Spec, path, opts)); len(after) > before {
			p.warnings = append(p.warnings, fmt.Sprintf("winkube (SCH-2): spec.os.name was not set to %s because the API server would then refuse the pod: %v", p.os, after[before]))
			return
		}
	}
	p.specOS = true
	p.rules = append(p.rules, "SCH-2")
}

func tolerationFor(t corev1.Taint) corev1.Toleration {
	if t.Value == "" {
		return corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpExists, Effect: t.Effect}
	}
	return corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: t.Effect}
}

// placeOnNodes checks the pod against the cluster's nodes: the nodes its
// own fields select must run its images (else it is refused), and when
// only some of them do, a windows-build term keeps it on those.
func (h *Handler) placeOnNodes(p *placement, s *scheduling, images []podImage, nodes []*node, hostProcess bool, hosts *hostChecks) {
	var selected, ofOS, matched, good []*node
	var first windows.Verdict
	var firstImage *podImage
	selectedAt := make([]bool, len(nodes))
	for _, i := range windows.Selected(&s.spec, objects(nodes)) {
		selectedAt[i] = true
		selected = append(selected, nodes[i])
	}
	for i, n := range nodes {
		if n.OS != p.os {
			continue
		}
		ofOS = append(ofOS, n)
		if !selectedAt[i] {
			continue
		}
		matched = append(matched, n)
		h := n.Host
		if hostProcess {
			h.Build = windows.Build{} // HostProcess containers run on the host, any build
		}
		if pi, v := hosts.failing(images, h); pi != nil {
			if firstImage == nil {
				first, firstImage = v, pi
			}
			continue
		}
		good = append(good, n)
	}
	switch {
	case len(ofOS) == 0:
		p.warnings = append(p.warnings, fmt.Sprintf("winkube (SCH-1): the cluster has no %s node, so the pod stays Pending until one joins", p.os))
	case len(matched) == 0 && len(selected) > 0 && s.constrained():
		pi := firstKnown(images)
		p.refusal = refusal(
			"IMG-4",
			fmt.Sprintf("the pod's own placement (%s) selects only nodes that are not %s (%s), but %s %s runs only on %s", describeScheduling(s), p.os, describeNodes(selected), pi.path, pi.ref, p.os),
			"remove the pod's node selection and let winkube place it, or use an image built for those nodes",
		)
	case len(matched) > 0 && len(good) == 0 && len(matched) < len(ofOS):
		p.refusal = refusal(
			first.Rule,
			fmt.Sprintf("the pod's own placement (%s) selects only %s, where %s cannot run: %v", describeScheduling(s), describeNodes(matched), firstImage.path, first.Err()),
			fmt.Sprintf("remove the pod's node selection and let winkube place it; %s", describeGood(ofOS, images, hostProcess)),
		)
	case len(matched) > 0 && len(good) == 0:
		p.warnings = append(p.warnings, fmt.Sprintf("winkube (%s): no %s node of the cluster runs %s %s: %v", first.Rule, p.os, firstImage.path, firstImage.ref, first.Err()))
	case len(good) < len(matched) && p.os == "windows" && !hostProcess:
		p.builds = buildLabels(good)
	}
}

// objects are the nodes' API objects, for windows.Reach.
func objects(nodes []*node) []*corev1.Node {
	out := make([]*corev1.Node, len(nodes))
	for i, n := range nodes {
		out[i] = n.obj
	}
	return out
}

func firstKnown(images []podImage) *podImage {
	for i := range images {
		if images[i].known() {
			return &images[i]
		}
	}
	return &images[0]
}

// describeGood names the nodes that do run the images.
func describeGood(nodes []*node, images []podImage, hostProcess bool) string {
	var good []*node
	for _, n := range nodes {
		h := n.Host
		if hostProcess {
			h.Build = windows.Build{}
		}
		if pi, _ := failingImage(images, h); pi == nil {
			good = append(good, n)
		}
	}
	if len(good) == 0 {
		return "no node of the cluster runs the images"
	}
	return "they run on " + describeNodes(good)
}

// buildLabels are the distinct windows-build labels of the nodes; nil when
// a node has none (its build cannot be selected).
func buildLabels(nodes []*node) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range nodes {
		l := n.BuildLabel
		if l == "" {
			return nil
		}
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// describeNodes names up to three nodes with their OS and build.
func describeNodes(nodes []*node) string {
	const shown = 3
	var parts []string
	for i, n := range nodes {
		if i == shown {
			parts = append(parts, fmt.Sprintf("and %d more", len(nodes)-shown))
			break
		}
		parts = append(parts, n.Describe())
	}
	return strings.Join(parts, ", ")
}

// describeImages says why the pod was placed, for the annotation.
func describeImages(images []podImage, os string, builds []string, hostProcess bool) string {
	var refs []string
	seen := map[string]bool{}
	for _, pi := range images {
		if pi.known() && !seen[pi.ref] {
			seen[pi.ref] = true
			refs = append(refs, fmt.Sprintf("%s (%s)", pi.ref, pi.ans.Source))
		}
	}
	where := os
	switch {
	case len(builds) > 0:
		where += " " + strings.Join(builds, ", ")
	case hostProcess:
		where += " (HostProcess, any build)"
	}
	return fmt.Sprintf("images %s run on %s", strings.Join(refs, ", "), where)
}

// annotation is the winkube.io/placed-by text: what was added, with rule
// IDs, and why.
func (p *placement) annotation() string {
	var added []string
	if p.selectOS {
		added = append(added, fmt.Sprintf("nodeSelector kubernetes.io/os=%s (SCH-5)", p.os))
	}
	if len(p.builds) > 0 {
		added = append(added, fmt.Sprintf("node affinity node.kubernetes.io/windows-build In (%s) (IMG-2)", strings.Join(p.builds, ", ")))
	}
	if p.toleration != nil {
		t := corev1.Taint{Key: p.toleration.Key, Value: p.toleration.Value, Effect: p.toleration.Effect}
		added = append(added, fmt.Sprintf("toleration for %s (SCH-3)", t.ToString()))
	}
	if p.specOS {
		added = append(added, fmt.Sprintf("spec.os.name=%s (SCH-2)", p.os))
	}
	return "winkube webhook added " + strings.Join(added, ", ") + ": " + p.reason
}
