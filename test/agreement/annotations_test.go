package agreement

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/lint"
	"github.com/winkube/winkube/pkg/manifest"
	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/webhook"
)

// annotationCases are a bad and a good value of every winkube pod
// annotation a WK rule checks.
var annotationCases = []struct {
	rule, key, bad, good string
}{
	// rule: WK-1
	{"WK-1", annotations.UnknownProgram, "sometimes", "exit 3"},
	// rule: WK-2
	{"WK-2", annotations.RunSeconds, "soon", "2.5"},
	// rule: WK-3
	{"WK-3", annotations.ExitCode, "1.5", "1"},
	// rule: WK-4
	{"WK-4", annotations.IgnoreSIGTERM, "yes", "true"},
	// rule: WK-5
	{"WK-5", annotations.UsageCPU, "-1", "750m"},
	// rule: WK-6
	{"WK-6", annotations.UsageMemory, "lots", "300Mi"},
}

// TestAnnotationAgreement: for a bad value of each winkube pod annotation,
// lint reports the annotation's WK rule, the webhook (by default) denies
// the Deployment with the same rule and words, and the emulated node's
// refusal (annotations.PodValueErrors, which its container config check
// returns; pkg/node's TestAnnotationValueRefusedInTheRuleBooksWords runs
// it on a node) is those words; a good value is reported by none.
func TestAnnotationAgreement(t *testing.T) {
	target := cluster(t, kubeversion.DefaultMinor)
	h, err := webhook.NewHandler(webhook.Options{KubernetesVersion: "1." + strconv.Itoa(target.Minor)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	for _, c := range annotationCases {
		ann := map[string]string{c.key: c.bad}
		d := annotatedDeployment(ann)
		node := annotations.PodValueErrors(ann)
		if len(node) != 1 {
			t.Fatalf("%s=%q: the node refuses with %v", c.key, c.bad, node)
		}
		words := node[0].Error()
		lintMsg := lintFinding(t, target, d, c.rule)
		if !strings.HasSuffix(lintMsg, ": "+words) {
			t.Errorf("%s: lint says %q, the node %q", c.rule, lintMsg, words)
		}
		resp := validate(t, h, d)
		if resp.Allowed || !strings.Contains(resp.Result.Message, c.rule+": "+lintMsg) {
			t.Errorf("%s: the webhook answers allowed=%v %v, want a denial quoting lint's %q", c.rule, resp.Allowed, resp.Result, lintMsg)
		}

		good := annotatedDeployment(map[string]string{c.key: c.good})
		if errs := annotations.PodValueErrors(good.Spec.Template.Annotations); len(errs) != 0 {
			t.Errorf("%s=%q: the node refuses a good value: %v", c.key, c.good, errs)
		}
		if msg := lintFinding(t, target, good, c.rule); msg != "" {
			t.Errorf("%s=%q: lint says %q", c.key, c.good, msg)
		}
		if resp := validate(t, h, good); !resp.Allowed || len(resp.Warnings) > 0 {
			t.Errorf("%s=%q: the webhook answers allowed=%v %v %v", c.key, c.good, resp.Allowed, resp.Result, resp.Warnings)
		}
	}
}

// rule: WK-7
// A pod annotation on the Deployment itself: lint and the webhook warn
// with the same words (the node never sees it).
func TestMisplacedAnnotationAgreement(t *testing.T) {
	target := cluster(t, kubeversion.DefaultMinor)
	h, err := webhook.NewHandler(webhook.Options{KubernetesVersion: "1." + strconv.Itoa(target.Minor)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	d := annotatedDeployment(nil)
	d.Annotations = map[string]string{annotations.RunSeconds: "10"}
	msg := lintFinding(t, target, d, "WK-7")
	if msg == "" {
		t.Fatal("lint says nothing of a pod annotation on a Deployment")
	}
	resp := validate(t, h, d)
	if !resp.Allowed || len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "WK-7: "+msg) {
		t.Errorf("the webhook answers allowed=%v %v, want a warning quoting lint's %q", resp.Allowed, resp.Warnings, msg)
	}
}

func annotatedDeployment(ann map[string]string) *appsv1.Deployment {
	labels := map[string]string{"app": "annotated"}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "annotated", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: ann},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{corev1.LabelOSStable: "linux"},
					Containers:   []corev1.Container{{Name: "app", Image: "registry.k8s.io/e2e-test-images/busybox:1.37.0-1", Command: []string{"sleep", "3600"}}},
				},
			},
		},
	}
}

// lintFinding is the message of lint's finding of rule on obj ("" when
// it has none).
func lintFinding(t *testing.T, target *lint.Target, obj runtime.Object, rule string) string {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	objs := []manifest.Object{{File: "in.yaml", Doc: -1, Obj: &unstructured.Unstructured{Object: m}}}
	for _, f := range lint.New(target).Lint(objs).Findings {
		if f.Rule == rule {
			if want := rules.VerdictOf(rule, "").Severity; f.Severity != want {
				t.Errorf("%s: lint's finding is %s, the rule book says %s", rule, f.Severity, want)
			}
			return f.Message
		}
	}
	return ""
}

// validate is the validating webhook's answer to creating obj.
func validate(t *testing.T, h *webhook.Handler, obj runtime.Object) *admissionv1.AdmissionResponse {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	req := &admissionv1.AdmissionRequest{UID: "1", Namespace: "default", Operation: admissionv1.Create,
		Kind: metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}}
	req.Object.Raw = raw
	return h.Validate(context.Background(), req)
}
