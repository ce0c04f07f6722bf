package standin

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxBody bounds what the stand-in reads of a request body.
const maxBody = 1 << 20

// reply is the stand-in's answer to one HTTP request, in the protocol the
// request speaks: an AdmissionReview (a webhook the cluster calls) is
// allowed, with a warning saying that no webhook ran, so that one the
// emulation cannot run never blocks admission for the whole cluster; a
// request of the Kubernetes API (an aggregated API server) is answered
// 503, as an API server that is not available; anything else gets 200 and
// text.
func reply(cfg Config, r *http.Request, text string) (status int, contentType, body string) {
	data, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if review, ok := admissionReview(data); ok {
		return http.StatusOK, "application/json", allow(cfg, review)
	}
	if r.URL.Path == "/api" || r.URL.Path == "/apis" || strings.HasPrefix(r.URL.Path, "/apis/") || strings.HasPrefix(r.URL.Path, "/api/") {
		return http.StatusServiceUnavailable, "text/plain; charset=utf-8", text
	}
	return http.StatusOK, "text/plain; charset=utf-8", text
}

// admissionReview decodes an admission.k8s.io/v1 AdmissionReview request.
func admissionReview(data []byte) (*admissionv1.AdmissionReview, bool) {
	var review admissionv1.AdmissionReview
	if len(data) == 0 || json.Unmarshal(data, &review) != nil {
		return nil, false
	}
	if review.Kind != "AdmissionReview" || review.Request == nil {
		return nil, false
	}
	return &review, true
}

// allow is the AdmissionReview response that admits the request and says
// why in a warning the API server passes to the client.
func allow(cfg Config, review *admissionv1.AdmissionReview) string {
	out := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Response: &admissionv1.AdmissionResponse{
			UID:     review.Request.UID,
			Allowed: true,
			Warnings: []string{fmt.Sprintf("winkube stand-in for %s allowed this request without running the webhook: winkube does not run %s",
				cfg.Image, cfg.Why)},
		},
	}
	b, _ := json.Marshal(out)
	return string(b)
}
