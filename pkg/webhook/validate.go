package webhook

import (
	"context"
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

// Validate applies the API-* rules (on clusters older than 1.27, whose API
// servers do not enforce them all yet; API-8), the LIM-* rules and the
// WK-* rules of winkube's own pod annotations to a Pod
// being created or a workload's pod template being created or updated,
// the way lint reports them. Each finding denies the request when its rule
// is in Options.Enforce, and becomes an admission warning when it is in
// Options.Warn. For Pods LIM-1 is the mutating webhook's (see Mutate).
func (h *Handler) Validate(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	t, err := decodeTemplate(req)
	if err != nil {
		return allowWarn(req, fmt.Sprintf("winkube: not checked: decoding the %s: %v", req.Kind.Kind, err))
	}
	if t == nil {
		return allow(req)
	}
	res := h.resolve(ctx, t.pod, t.spec, t.path)
	var denied, warnings []string
	for _, f := range h.findings(t, res.images) {
		switch {
		case h.s.enforce.has(f.Rule, f.Severity):
			h.metrics.decision(f.Rule, "denied")
			denied = append(denied, text(f))
		case h.s.warn.has(f.Rule, f.Severity):
			h.metrics.decision(f.Rule, "warned")
			warnings = append(warnings, "winkube "+text(f))
		}
	}
	if len(denied) > 0 {
		return deny(req, denied, warnings)
	}
	return allowWarn(req, warnings...)
}

// template is the pod spec a request carries.
type template struct {
	kind string
	meta *metav1.ObjectMeta
	spec *corev1.PodSpec
	path *field.Path
	// podMeta is the metadata of the pods it makes (the Pod's own, or the
	// template's), at podMetaPath.
	podMeta     *metav1.ObjectMeta
	podMetaPath *field.Path
	// pod stands for the pods the template makes (namespace, pull
	// secrets, service account) for registry look-ups.
	pod *corev1.Pod
}

// decodeTemplate reads the pod spec of a Pod (CREATE) or of a workload
// (CREATE, UPDATE); nil for anything else or an object being deleted.
func decodeTemplate(req *admissionv1.AdmissionRequest) (*template, error) {
	if req.SubResource != "" {
		return nil, nil
	}
	gk := req.Kind.Group + "/" + req.Kind.Kind
	// Pods are checked once, when created: later updates (labels,
	// owner references) must not be blocked by a rule enforced since.
	if req.Operation != admissionv1.Create && (req.Operation != admissionv1.Update || gk == "/Pod") {
		return nil, nil
	}
	spec := field.NewPath("spec")
	tmpl := spec.Child("template", "spec")
	var t *template
	var err error
	switch {
	case gk == "/Pod":
		o := &corev1.Pod{}
		err = json.Unmarshal(req.Object.Raw, o)
		t = &template{meta: &o.ObjectMeta, spec: &o.Spec, path: spec, podMeta: &o.ObjectMeta, podMetaPath: field.NewPath("metadata")}
	case gk == "/ReplicationController":
		o := &corev1.ReplicationController{}
		if err = json.Unmarshal(req.Object.Raw, o); err == nil && o.Spec.Template != nil {
			t = &template{meta: &o.ObjectMeta, spec: &o.Spec.Template.Spec, path: tmpl,
				podMeta: &o.Spec.Template.ObjectMeta, podMetaPath: spec.Child("template", "metadata")}
		}
	case workloadKinds[gk]:
		o := &templated{}
		err = json.Unmarshal(req.Object.Raw, o)
		t = &template{meta: &o.ObjectMeta, spec: &o.Spec.Template.Spec, path: tmpl,
			podMeta: &o.Spec.Template.ObjectMeta, podMetaPath: spec.Child("template", "metadata")}
	case gk == "batch/CronJob":
		o := &batchv1.CronJob{}
		err = json.Unmarshal(req.Object.Raw, o)
		t = &template{meta: &o.ObjectMeta, spec: &o.Spec.JobTemplate.Spec.Template.Spec, path: spec.Child("jobTemplate", "spec", "template", "spec"),
			podMeta: &o.Spec.JobTemplate.Spec.Template.ObjectMeta, podMetaPath: spec.Child("jobTemplate", "spec", "template", "metadata")}
	}
	if err != nil || t == nil {
		return nil, err
	}
	if t.meta.DeletionTimestamp != nil {
		return nil, nil
	}
	t.kind = req.Kind.Kind
	ns := t.meta.Namespace
	if ns == "" {
		ns = req.Namespace
	}
	t.pod = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns}, Spec: *t.spec}
	return t, nil
}

// findings are the rule book's findings on one pod spec
// (windows.PodViolations) and LIM-1 for a workload whose images mix OSes.
func (h *Handler) findings(t *template, images []podImage) []*rules.Finding {
	var out []*rules.Finding
	oses := imageOSes(images)
	if oses != nil && len(oses) == 0 && t.kind != "Pod" {
		out = append(out, mixedImages(images))
	}
	target := windows.PodTarget{Minor: h.cluster.kubernetesMinor(), AllowPrivileged: true, Admission: true, Entrypoint: imageinfo.EntrypointOf}
	if h.podOS(t, oses) == "windows" {
		target.Windows, target.Runtime = true, h.windowsRuntime(t.spec)
	}
	if f := h.handlerFinding(t); f != nil {
		out = append(out, f)
	}
	vs := windows.PodViolations(t.spec, t.path, target)
	vs = append(vs, windows.PodAnnotationViolations(t.podMeta.Annotations, t.podMetaPath)...)
	if t.kind != "Pod" {
		vs = append(vs, windows.MisplacedAnnotationViolations(t.meta.Annotations, field.NewPath("metadata"), t.podMetaPath)...)
	}
	for _, v := range vs {
		if v.Rule == "LIM-14" && defaultGracePeriod(t.spec) {
			// The API server fills in 30 s for every pod; only a period
			// the user asked for is worth a warning.
			continue
		}
		out = append(out, violationFinding(v))
	}
	return out
}

// violationFinding is a rule-book violation in the webhook's words: the
// field path, then the message lint shows after it. Its severity is the
// one pkg/windows gives this pod's violation, as lint reports it.
func violationFinding(v windows.Violation) *rules.Finding {
	msg := v.Message
	if v.Path != "" {
		msg = v.Path + ": " + msg
	}
	f := rules.New(v.Rule, "", msg).WithFix(v.Fix)
	f.Severity = v.Severity
	return &f
}

// podOS is the OS the pod runs, from the rule book (windows.PodOS, as
// lint asks it): the one its images share, else the one its own fields
// pin (spec.os.name, the OS or build selector, affinity, with its
// RuntimeClass's merged in).
func (h *Handler) podOS(t *template, oses map[string]bool) string {
	imagesOS := ""
	if len(oses) == 1 {
		for os := range oses {
			imagesOS = os
		}
	}
	s := h.scheduling(t.pod)
	return windows.PodOS(t.spec, &s.spec, imagesOS, "")
}

// windowsRuntime is docker when a Windows node the pod can land on runs
// Docker (LIM-7, LIM-14 depend on it; KLT-10), containerd otherwise.
func (h *Handler) windowsRuntime(spec *corev1.PodSpec) string {
	nodes := h.cluster.nodeList()
	var win []*node
	for _, n := range nodes {
		if n.IsWindows() {
			win = append(win, n)
		}
	}
	sel := selectedNodes(spec, win)
	if len(sel) == 0 {
		sel = win
	}
	for _, n := range sel {
		if windows.IsDocker(n.Runtime) {
			return windows.RuntimeDocker
		}
	}
	return windows.RuntimeContainerd
}

func defaultGracePeriod(spec *corev1.PodSpec) bool {
	g := spec.TerminationGracePeriodSeconds
	return g != nil && *g == corev1.DefaultTerminationGracePeriodSeconds
}

// workloadKinds are the kinds whose pod template is spec.template.
var workloadKinds = map[string]bool{
	"apps/Deployment": true, "apps/StatefulSet": true, "apps/DaemonSet": true,
	"apps/ReplicaSet": true, "batch/Job": true,
}

// templated is what those kinds share: metadata and spec.template.
type templated struct {
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Template corev1.PodTemplateSpec `json:"template"`
	} `json:"spec"`
}
