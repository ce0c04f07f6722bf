package agreement

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/winkube/winkube/pkg/doctor"
	"github.com/winkube/winkube/pkg/gmsa"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/manifest"
	"github.com/winkube/winkube/pkg/network"
)

// TestGMSAAgreement: for examples/gmsa.yaml and each way of breaking it,
// lint (on the manifests), the windows-gmsa webhook (served over HTTP,
// answering from the same objects, mutate then validate) and doctor (on
// the pod the webhook admitted from the intact example, in a cluster that
// then holds the broken objects) name the same GMSA rule in the webhook's
// words, or all admit it.
func TestGMSAAgreement(t *testing.T) {
	target := cluster(t, kubeversion.DefaultMinor)
	example, _ := manifest.Load([]string{filepath.Join(repoRoot, "examples", "gmsa.yaml")}, manifest.Options{})
	other := `{"CmsPlugins":["ActiveDirectory"]}`
	cases := []struct {
		name, rule string
		edit       func(objs []manifest.Object) []manifest.Object
	}{
		{"intact", "", func(o []manifest.Object) []manifest.Object { return o }},
		// rule: GMSA-1
		{"spec deleted", "GMSA-1", func(o []manifest.Object) []manifest.Object { return without(o, gmsa.Kind) }},
		// rule: GMSA-2
		{"binding deleted", "GMSA-2", func(o []manifest.Object) []manifest.Object { return without(o, "RoleBinding") }},
		// rule: GMSA-3
		{"spec changed", "GMSA-3", func(o []manifest.Object) []manifest.Object {
			return edited(o, gmsa.Kind, func(u *unstructured.Unstructured) {
				u.Object[gmsa.ContentsField] = map[string]any{"CmsPlugins": []any{"ActiveDirectory"}}
			})
		}},
	}
	admittedPod := webhookAdmits(t, example)
	if admittedPod == nil {
		t.Fatal("the webhook refuses examples/gmsa.yaml")
	}
	for _, c := range cases {
		objs := c.edit(copies(example))
		if c.rule == "GMSA-3" {
			// lint and the webhook see contents the pod sets itself; the
			// spec stays as it was.
			objs = edited(copies(example), "Deployment", func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, other, "spec", "template", "spec", "securityContext", "windowsOptions", "gmsaCredentialSpec")
			})
		}
		lintRule, lintMsg := "", ""
		for _, f := range lintFindings(target, objs) {
			if strings.HasPrefix(f.Rule, "GMSA-") {
				lintRule, lintMsg = f.Rule, f.Message
			}
		}
		hookMsg := webhookRefuses(t, objs)
		world := c.edit(copies(example))
		doctorRule, doctorMsg := doctorSays(t, world, admittedPod)
		switch {
		case c.rule == "":
			if lintRule != "" || hookMsg != "" || doctorRule != "" {
				t.Errorf("%s: lint %s %q, webhook %q, doctor %s %q; want all to admit", c.name, lintRule, lintMsg, hookMsg, doctorRule, doctorMsg)
			}
		case lintRule != c.rule || doctorRule != c.rule || hookMsg == "":
			t.Errorf("%s: lint %s, doctor %s, webhook %q; want %s from all", c.name, lintRule, doctorRule, hookMsg, c.rule)
		case !strings.HasSuffix(lintMsg, hookMsg) || !sameBut(doctorMsg, hookMsg, admittedPod.Name):
			t.Errorf("%s: different words:\n lint:    %s\n webhook: %s\n doctor:  %s", c.name, lintMsg, hookMsg, doctorMsg)
		}
	}
}

// sameBut: equal once the live pod's name is the one a template's pod has
// at admission ("").
func sameBut(doctor, hook, pod string) bool {
	return doctor == hook || strings.Replace(doctor, `"`+pod+`"`, `""`, 1) == hook
}

// webhookAdmits runs the example's Deployment's pod through the webhook
// and returns it as admitted (nil if refused).
func webhookAdmits(t *testing.T, objs []manifest.Object) *corev1.Pod {
	t.Helper()
	pod := templatePod(t, objs)
	specs := staticOf(t, objs)
	raw, _ := json.Marshal(pod)
	resp := review(t, gmsa.New(specs), gmsa.MutatePath, raw)
	if !resp.Allowed {
		return nil
	}
	if resp.Patch != nil {
		pod = patched(t, raw, resp.Patch)
	}
	pod.Name = "gmsa-demo-7d4b9"
	pod.Spec.NodeName = "win2019-1"
	return pod
}

// webhookRefuses is the webhook's refusal of the template's pod ("" when
// admitted), mutate then validate, as the API server calls them.
func webhookRefuses(t *testing.T, objs []manifest.Object) string {
	t.Helper()
	specs := staticOf(t, objs)
	pod := templatePod(t, objs)
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = "default"
	}
	raw, _ := json.Marshal(pod)
	wh := gmsa.New(specs)
	resp := review(t, wh, gmsa.MutatePath, raw)
	if !resp.Allowed {
		return resp.Result.Message
	}
	if resp.Patch != nil {
		raw, _ = json.Marshal(patched(t, raw, resp.Patch))
	}
	if resp := review(t, wh, gmsa.ValidatePath, raw); !resp.Allowed {
		return resp.Result.Message
	}
	return ""
}

func review(t *testing.T, wh *gmsa.Webhook, path string, pod []byte) *admissionv1.AdmissionResponse {
	t.Helper()
	ar := admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{Kind: "AdmissionReview", APIVersion: "admission.k8s.io/v1"},
		Request: &admissionv1.AdmissionRequest{UID: "1", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Namespace: "default", Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: pod}}}
	body, _ := json.Marshal(ar)
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	wh.ServeHTTP(rec, req)
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Response == nil {
		t.Fatalf("webhook answer %q: %v", rec.Body.String(), err)
	}
	return out.Response
}

// doctorSays is doctor's GMSA finding on the admitted pod in a cluster
// holding objs.
func doctorSays(t *testing.T, objs []manifest.Object, pod *corev1.Pod) (rule, msg string) {
	t.Helper()
	g := &doctor.GMSA{Objects: gmsaObjects(t, objs)}
	s := &doctor.State{Snapshot: &network.Snapshot{Pods: []*corev1.Pod{pod}}, GMSA: g}
	for _, f := range doctor.Check(s).Findings {
		if strings.HasPrefix(f.Rule, "GMSA-") {
			return f.Rule, f.Message
		}
	}
	return "", ""
}

// gmsaObjects are the input's specs and RBAC objects.
func gmsaObjects(t *testing.T, objs []manifest.Object) gmsa.Objects {
	t.Helper()
	var g gmsa.Objects
	for _, o := range objs {
		if _, err := g.Add(o.Obj, "default"); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func staticOf(t *testing.T, objs []manifest.Object) *gmsa.StaticCredSpecs {
	return gmsaObjects(t, objs).Static()
}

// templatePod is the pod the input's Deployment makes, as the webhook
// sees it (no name yet).
func templatePod(t *testing.T, objs []manifest.Object) *corev1.Pod {
	t.Helper()
	ws := workloadsOf(objs)
	if len(ws) != 1 {
		t.Fatalf("%d workloads", len(ws))
	}
	p := ws[0].podOf("", 0)
	p.Name = ""
	return p
}

func copies(objs []manifest.Object) []manifest.Object {
	out := make([]manifest.Object, len(objs))
	for i, o := range objs {
		out[i] = o
		out[i].Obj = o.Obj.DeepCopy()
	}
	return out
}

func without(objs []manifest.Object, kind string) []manifest.Object {
	var out []manifest.Object
	for _, o := range objs {
		if o.Obj.GetKind() != kind {
			out = append(out, o)
		}
	}
	return out
}

func edited(objs []manifest.Object, kind string, f func(*unstructured.Unstructured)) []manifest.Object {
	for _, o := range objs {
		if o.Obj.GetKind() == kind {
			f(o.Obj)
		}
	}
	return objs
}
