package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/winkube/winkube/pkg/windows"
)

// Mutate is the placement decision for a pod being created: when its
// images fit one OS (and, for Windows, only some of the cluster's builds)
// it adds what is missing — the kubernetes.io/os nodeSelector (SCH-5), a
// required windows-build node-affinity term (IMG-2), the Windows taint's
// toleration (SCH-3) and spec.os.name (SCH-2) — and records why in the
// winkube.io/placed-by annotation. It never removes or changes what the
// pod sets. A pod whose own placement contradicts its images (IMG-2,
// IMG-4) or whose images mix OSes (LIM-1) is refused, or admitted with a
// warning in warn mode. Other requests are admitted unchanged.
func (h *Handler) Mutate(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	if !isPodCreate(req) {
		return allow(req)
	}
	pod := &corev1.Pod{}
	if err := json.Unmarshal(req.Object.Raw, pod); err != nil {
		return allowWarn(req, fmt.Sprintf("winkube: pod not placed: decoding it: %v", err))
	}
	if pod.Namespace == "" {
		pod.Namespace = req.Namespace
	}
	res := h.resolve(ctx, pod, &pod.Spec, field.NewPath("spec"))
	if res.failed && h.s.allowOnError {
		h.metrics.decision("registry-error", "allowed")
		return allowWarn(req, res.warnings...)
	}
	p := h.place(pod, res.images)
	warnings := append(res.warnings, p.warnings...)
	if p.refusal != nil {
		return h.refuse(req, p.refusal, warnings)
	}
	ops := p.patch(pod)
	if len(ops) == 0 {
		return allowWarn(req, warnings...)
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return allowWarn(req, append(warnings, fmt.Sprintf("winkube: pod not placed: %v", err))...)
	}
	for _, rule := range p.rules {
		h.metrics.decision(rule, "placed")
	}
	resp := allowWarn(req, warnings...)
	pt := admissionv1.PatchTypeJSONPatch
	resp.Patch, resp.PatchType = patch, &pt
	return resp
}

func isPodCreate(req *admissionv1.AdmissionRequest) bool {
	return req.Kind.Kind == "Pod" && req.Kind.Group == "" && req.SubResource == "" && req.Operation == admissionv1.Create
}

// finding is a rule broken, in the words sent back to the user.
type finding struct {
	rule    string
	message string
	fix     string
	advice  bool // rule-book severity info
	warning bool // rule-book severity warning
}

func (f *finding) String() string {
	s := f.rule + ": " + f.message
	if f.fix != "" {
		s += " (fix: " + f.fix + ")"
	}
	return s
}

// refuse denies the pod for a placement finding, or admits it with the
// finding as a warning in warn mode.
func (h *Handler) refuse(req *admissionv1.AdmissionRequest, f *finding, warnings []string) *admissionv1.AdmissionResponse {
	if h.s.warnOnly {
		h.metrics.decision(f.rule, "warned")
		return allowWarn(req, append(warnings, "winkube "+f.String())...)
	}
	h.metrics.decision(f.rule, "denied")
	return deny(req, []string{f.String()}, warnings)
}

// placement is what Mutate adds to one pod.
type placement struct {
	os         string
	builds     []string // windows-build values for a required affinity term
	toleration *corev1.Toleration
	specOS     bool
	selectOS   bool
	reason     string // why: the images and what they run on
	rules      []string
	warnings   []string
	refusal    *finding
}

// scheduling is the pod's own placement with its RuntimeClass merged in,
// as the RuntimeClass admission plugin merges it (SCH-4).
type scheduling struct {
	spec corev1.PodSpec // NodeName, NodeSelector, Affinity, Tolerations
	// fromClass names the nodeSelector keys the RuntimeClass set.
	fromClass map[string]string
	class     string
}

func (h *Handler) scheduling(pod *corev1.Pod) *scheduling {
	s := &scheduling{spec: corev1.PodSpec{
		NodeName:     pod.Spec.NodeName,
		NodeSelector: map[string]string{},
		Affinity:     pod.Spec.Affinity,
		Tolerations:  append([]corev1.Toleration(nil), pod.Spec.Tolerations...),
	}, fromClass: map[string]string{}}
	for k, v := range pod.Spec.NodeSelector {
		s.spec.NodeSelector[k] = v
	}
	if name := pod.Spec.RuntimeClassName; name != nil && *name != "" {
		s.class = *name
		if rc := h.cluster.runtimeClass(*name); rc != nil && rc.Scheduling != nil {
			for k, v := range rc.Scheduling.NodeSelector {
				if _, ok := s.spec.NodeSelector[k]; !ok {
					s.spec.NodeSelector[k] = v
					s.fromClass[k] = v
				}
			}
			s.spec.Tolerations = append(s.spec.Tolerations, rc.Scheduling.Tolerations...)
		}
	}
	return s
}

// selectorSource names where a nodeSelector key came from.
func (s *scheduling) selectorSource(key string) string {
	if _, ok := s.fromClass[key]; ok {
		return fmt.Sprintf("RuntimeClass %s scheduling.nodeSelector[%s]=%s", s.class, key, s.spec.NodeSelector[key])
	}
	return fmt.Sprintf("spec.nodeSelector[%s]=%s", key, s.spec.NodeSelector[key])
}

// constrained reports whether the pod narrows its nodes at all.
func (s *scheduling) constrained() bool {
	return s.spec.NodeName != "" || len(s.spec.NodeSelector) > 0 || requiredTerms(s.spec.Affinity) != nil
}

// osPin is one of the pod's own fields that pins an OS.
type osPin struct {
	source, os string
}

// osPins lists the fields that pin an OS: the OS and build selectors (the
// pod's or its RuntimeClass's), a required node affinity whose every term
// pins one OS, and spec.os.name.
func (s *scheduling) osPins(pod *corev1.Pod) []osPin {
	var pins []osPin
	for _, k := range []string{corev1.LabelOSStable, windows.LabelOSBeta} {
		if v, ok := s.spec.NodeSelector[k]; ok {
			pins = append(pins, osPin{s.selectorSource(k), v})
		}
	}
	if _, ok := s.spec.NodeSelector[corev1.LabelWindowsBuild]; ok {
		pins = append(pins, osPin{s.selectorSource(corev1.LabelWindowsBuild), "windows"})
	}
	if os := windows.AffinityOS(s.spec.Affinity); os != "" {
		pins = append(pins, osPin{"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", os})
	}
	if pod.Spec.OS != nil && pod.Spec.OS.Name != "" {
		pins = append(pins, osPin{"spec.os.name=" + string(pod.Spec.OS.Name), string(pod.Spec.OS.Name)})
	}
	return pins
}

func requiredTerms(a *corev1.Affinity) []corev1.NodeSelectorTerm {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
}

// pinnedBuilds are the windows-build values the pod allows: its selector's
// value, or the values of a required affinity whose every term names
// them. Nil when it allows every build.
func (s *scheduling) pinnedBuilds() (source string, builds []string) {
	if v, ok := s.spec.NodeSelector[corev1.LabelWindowsBuild]; ok {
		return s.selectorSource(corev1.LabelWindowsBuild), []string{v}
	}
	terms := requiredTerms(s.spec.Affinity)
	for _, term := range terms {
		var values []string
		for _, req := range term.MatchExpressions {
			if req.Key == corev1.LabelWindowsBuild && req.Operator == corev1.NodeSelectorOpIn {
				values = req.Values
			}
		}
		if values == nil {
			return "", nil
		}
		builds = append(builds, values...)
	}
	if len(builds) == 0 {
		return "", nil
	}
	return "spec.affinity node.kubernetes.io/windows-build In (" + strings.Join(builds, ", ") + ")", builds
}

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
	if p.os == "windows" && !hostProcess {
		if p.refusal = pinnedBuildsRefusal(s, images); p.refusal != nil {
			return p
		}
	}
	if nodes := h.cluster.nodeList(); nodes != nil {
		h.placeOnNodes(p, s, images, nodes, hostProcess)
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
	before := windows.ValidatePodSpecOSWithOptions(&pod.Spec, path, opts)
	after := windows.ValidatePodSpecOSWithOptions(&spec, path, opts)
	if len(after) > len(before) {
		e := after[len(before)]
		p.warnings = append(p.warnings, fmt.Sprintf("winkube (SCH-2): spec.os.name was not set to %s because the API server would then refuse the pod: %v", p.os, e))
		return
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

// mixedImages is LIM-1 in the rule book's words.
func mixedImages(images []podImage) *finding {
	var cs []windows.ContainerOS
	for _, pi := range images {
		if pi.known() {
			cs = append(cs, windows.ContainerOS{Path: pi.path + " " + pi.ref, OSes: pi.ans.Image.OSes()})
		}
	}
	vs := windows.MixedPodOS(cs)
	if len(vs) == 0 {
		return &finding{rule: "LIM-1", message: "no operating system runs every image of the pod: " + describeOSes(images)}
	}
	return &finding{rule: "LIM-1", message: vs[0].Message, fix: vs[0].Fix}
}

func describeOSes(images []podImage) string {
	var parts []string
	for _, pi := range images {
		if pi.known() {
			parts = append(parts, fmt.Sprintf("%s %s offers %s", pi.path, pi.ref, strings.Join(pi.ans.Image.OSes(), ", ")))
		}
	}
	return strings.Join(parts, "; ")
}

// wrongOS is the refusal for a pod field pinning an OS an image lacks:
// the pull fails with "no match for platform" (IMG-4).
func wrongOS(pin osPin, images []podImage) *finding {
	for _, pi := range images {
		if !pi.known() || pi.ans.Image.HasOS(pin.os) {
			continue
		}
		v := pi.ans.Image.OnHost(windows.Host{OS: pin.os, Arch: "amd64", Runtime: windows.RuntimeContainerd})
		return &finding{
			rule:    v.Rule,
			message: fmt.Sprintf("%s, but %s %s runs only on %s: on a %s node the pull fails with %v", pin.source, pi.path, pi.ref, strings.Join(pi.ans.Image.OSes(), ", "), pin.os, v.Err()),
			fix:     fmt.Sprintf("remove %s and let winkube place the pod, or use an image built for %s", pin.source, pin.os),
		}
	}
	return &finding{rule: "IMG-4", message: pin.source + " contradicts the pod's images"}
}

// pinnedBuildsRefusal is IMG-2 for a pod that pins only Windows builds
// its images cannot run on.
func pinnedBuildsRefusal(s *scheduling, images []podImage) *finding {
	source, builds := s.pinnedBuilds()
	if builds == nil {
		return nil
	}
	var first windows.Verdict
	var firstImage *podImage
	for _, v := range builds {
		b, err := windows.ParseBuild(v)
		if err != nil {
			return nil // not a build label: the scheduler matches no node (SCH-1), not ours to judge
		}
		// The nodes are not known here: winkube's runtime, containerd.
		pi, verdict := failingImage(images, windows.Host{OS: "windows", Arch: "amd64", Build: b, Runtime: windows.RuntimeContainerd})
		if pi == nil {
			return nil
		}
		if firstImage == nil {
			first, firstImage = verdict, pi
		}
	}
	return &finding{
		rule:    first.Rule,
		message: fmt.Sprintf("%s, but %s cannot run there: %v", source, firstImage.path, first.Err()),
		fix:     fmt.Sprintf("remove %s and let winkube place the pod, or use an image built for %s", source, strings.Join(builds, ", ")),
	}
}

// failingImage returns the first known image that cannot run on a host
// and the rule book's verdict on it; nil when every image runs.
func failingImage(images []podImage, h windows.Host) (*podImage, windows.Verdict) {
	for i := range images {
		pi := &images[i]
		if !pi.known() {
			continue
		}
		if v := pi.ans.Image.OnHost(h); !v.Runs {
			return pi, v
		}
	}
	return nil, windows.Verdict{Runs: true}
}

// hostKey is what decides whether images run on a node.
type hostKey struct {
	os, arch, runtime string
	build             windows.Build
}

type hostResult struct {
	image   *podImage
	verdict windows.Verdict
}

// hostChecks remembers failingImage per kind of host: clusters have many
// nodes but few OS, architecture, build and runtime combinations.
type hostChecks map[hostKey]hostResult

func (hc hostChecks) failing(images []podImage, h windows.Host) (*podImage, windows.Verdict) {
	k := hostKey{h.OS, h.Arch, h.Runtime, h.Build}
	r, ok := hc[k]
	if !ok {
		r.image, r.verdict = failingImage(images, h)
		hc[k] = r
	}
	return r.image, r.verdict
}

// placeOnNodes checks the pod against the cluster's nodes: the nodes its
// own fields select must run its images (else it is refused), and when
// only some of them do, a windows-build term keeps it on those.
func (h *Handler) placeOnNodes(p *placement, s *scheduling, images []podImage, nodes []*node, hostProcess bool) {
	affinity := nodeaffinity.GetRequiredNodeAffinity(&corev1.Pod{Spec: s.spec})
	var selected, ofOS, matched, good []*node
	var first windows.Verdict
	var firstImage *podImage
	hosts := hostChecks{}
	for _, n := range nodes {
		isSelected := s.spec.NodeName == "" || s.spec.NodeName == n.Name
		if isSelected {
			ok, err := affinity.Match(n.obj)
			isSelected = err == nil && ok
		}
		if isSelected {
			selected = append(selected, n)
		}
		if n.OS != p.os {
			continue
		}
		ofOS = append(ofOS, n)
		if !isSelected {
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
		p.refusal = &finding{
			rule:    "IMG-4",
			message: fmt.Sprintf("the pod's own placement (%s) selects only nodes that are not %s (%s), but %s %s runs only on %s", describeScheduling(s), p.os, describeNodes(selected), pi.path, pi.ref, p.os),
			fix:     "remove the pod's node selection and let winkube place it, or use an image built for those nodes",
		}
	case len(matched) > 0 && len(good) == 0 && len(matched) < len(ofOS):
		p.refusal = &finding{
			rule:    first.Rule,
			message: fmt.Sprintf("the pod's own placement (%s) selects only %s, where %s cannot run: %v", describeScheduling(s), describeNodes(matched), firstImage.path, first.Err()),
			fix:     fmt.Sprintf("remove the pod's node selection and let winkube place it; %s", describeGood(ofOS, images, hostProcess)),
		}
	case len(matched) > 0 && len(good) == 0:
		p.warnings = append(p.warnings, fmt.Sprintf("winkube (%s): no %s node of the cluster runs %s %s: %v", first.Rule, p.os, firstImage.path, firstImage.ref, first.Err()))
	case len(good) < len(matched) && p.os == "windows" && !hostProcess:
		p.builds = buildLabels(good)
	}
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
		l := n.obj.Labels[corev1.LabelWindowsBuild]
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

func describeScheduling(s *scheduling) string {
	var parts []string
	if s.spec.NodeName != "" {
		parts = append(parts, "spec.nodeName="+s.spec.NodeName)
	}
	keys := make([]string, 0, len(s.spec.NodeSelector))
	for k := range s.spec.NodeSelector {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, s.selectorSource(k))
	}
	if requiredTerms(s.spec.Affinity) != nil {
		parts = append(parts, "required node affinity")
	}
	return strings.Join(parts, ", ")
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
		d := n.OS
		if !n.Build.IsZero() {
			d += " " + n.Build.Label()
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", n.Name, d))
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
