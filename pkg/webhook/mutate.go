package webhook

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/winkube/winkube/pkg/rules"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
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

// refusal is a placement finding of rule id: the rule book's severity and
// see-also, with a fix that names what to change in this pod ("" keeps the
// rule book's).
func refusal(id, message, fix string) *rules.Finding {
	f := rules.New(id, "", message).WithFix(fix)
	return &f
}

// text is a finding in the words sent back to the user: the rule, the
// message and the fix.
func text(f *rules.Finding) string {
	s := f.Rule + ": " + f.Message
	if f.Fix != "" {
		s += " (fix: " + f.Fix + ")"
	}
	return s
}

// refuse denies the pod for a placement finding, or admits it with the
// finding as a warning in warn mode.
func (h *Handler) refuse(req *admissionv1.AdmissionRequest, f *rules.Finding, warnings []string) *admissionv1.AdmissionResponse {
	if h.s.warnOnly {
		h.metrics.decision(f.Rule, "warned")
		return allowWarn(req, append(warnings, "winkube "+text(f))...)
	}
	h.metrics.decision(f.Rule, "denied")
	return deny(req, []string{text(f)}, warnings)
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
	refusal    *rules.Finding
}
