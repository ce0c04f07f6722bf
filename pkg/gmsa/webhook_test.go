package gmsa

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

type fakeSpecs map[string]string

func (f fakeSpecs) IsAuthorizedToUseCredSpec(context.Context, string, string, string) (bool, string) {
	return true, ""
}

func (f fakeSpecs) RetrieveCredSpecContents(_ context.Context, name string) (string, int, error) {
	return f[name], http.StatusOK, nil
}

func raw(t *testing.T, p *corev1.Pod) runtime.RawExtension {
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return runtime.RawExtension{Raw: data}
}

func gmsaPod(name string, contents string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}}}
	p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{GMSACredentialSpecName: &name, GMSACredentialSpec: &contents}}
	return p
}

// rule: GMSA-3
func TestUpdateRefusesGMSAChanges(t *testing.T) {
	wh := New(fakeSpecs{})
	req := &admissionv1.AdmissionRequest{
		Kind:      metav1.GroupVersionKind{Kind: "Pod"},
		Operation: admissionv1.Update,
		Object:    raw(t, gmsaPod("b", `{"x":2}`)),
		OldObject: raw(t, gmsaPod("a", `{"x":1}`)),
	}
	_, err := wh.admit(context.Background(), req, false)
	want := `cannot update an existing pod's GMSA settings (GMSA name and contents modified on container "app")`
	if err == nil || err.Error() != want || err.code != http.StatusForbidden {
		t.Fatalf("update: %v, want %q (403)", err, want)
	}
	req.Object = req.OldObject
	if resp, err := wh.admit(context.Background(), req, false); err != nil || !resp.Allowed {
		t.Errorf("unchanged update refused: %v", err)
	}
}

// The HTTP layer answers with the request's UID, refuses other methods and
// content types, and /health is 204, as upstream's.
func TestServeHTTP(t *testing.T) {
	wh := New(fakeSpecs{"s": `{"a":1}`})
	p := gmsaPod("s", "")
	p.Spec.Containers[0].SecurityContext.WindowsOptions.GMSACredentialSpec = nil
	review := admissionv1.AdmissionReview{Request: &admissionv1.AdmissionRequest{UID: "u1", Kind: metav1.GroupVersionKind{Kind: "Pod"}, Operation: admissionv1.Create, Object: raw(t, p)}}
	body, _ := json.Marshal(review)
	r := httptest.NewRequest(http.MethodPost, MutatePath, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	wh.ServeHTTP(w, r)
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || out.Response == nil {
		t.Fatalf("response %s: %v", w.Body, err)
	}
	wantPatch := `[{"op":"add","path":"/spec/containers/0/securityContext/windowsOptions/gmsaCredentialSpec","value":"{\"a\":1}"}]`
	if out.Response.UID != "u1" || !out.Response.Allowed || string(out.Response.Patch) != wantPatch {
		t.Errorf("response %+v, patch %s; want %s", out.Response, out.Response.Patch, wantPatch)
	}
	for _, c := range []struct {
		method, path, ct string
		code             int
	}{
		{http.MethodGet, MutatePath, "application/json", http.StatusMethodNotAllowed},
		{http.MethodPost, ValidatePath, "text/plain", http.StatusUnsupportedMediaType},
		{http.MethodGet, HealthPath, "", http.StatusNoContent},
		{http.MethodGet, "/nope", "", http.StatusNotFound},
	} {
		r := httptest.NewRequest(c.method, c.path, nil)
		r.Header.Set("Content-Type", c.ct)
		w := httptest.NewRecorder()
		wh.ServeHTTP(w, r)
		if w.Code != c.code {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, w.Code, c.code)
		}
	}
}
