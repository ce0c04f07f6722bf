package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
)

// maxReviewBytes bounds a request body; kube-apiserver limits objects to
// about 3 MiB, and a review carries the object (and the old one).
const maxReviewBytes = 8 << 20

// Handler serves the admission endpoints, health and metrics. It is safe
// for concurrent use.
type Handler struct {
	s       *settings
	secrets func(ctx context.Context, pod *corev1.Pod) ([][]byte, error)
	cluster *cluster
	metrics *metrics
	// catalog answers without the resolver when the resolver is the
	// catalog alone.
	catalog *catalogMemo
	mux     *http.ServeMux
}

// NewHandler validates opts and starts watching the cluster's nodes and
// RuntimeClasses when opts.Client is set; Close stops that. Errors name
// the flag to change.
func NewHandler(opts Options) (*Handler, error) {
	s, err := opts.settings()
	if err != nil {
		return nil, err
	}
	m, err := newMetrics(opts.Collectors)
	if err != nil {
		return nil, err
	}
	h := &Handler{s: s, secrets: opts.Secrets, metrics: m}
	_, catalogOnly := s.resolver.(imageinfo.CatalogResolver)
	if catalogOnly {
		h.catalog = &catalogMemo{answers: map[string]imageinfo.Answer{}}
	} else if h.secrets == nil && opts.Client != nil {
		client := opts.Client
		h.secrets = func(ctx context.Context, pod *corev1.Pod) ([][]byte, error) {
			return registry.SecretsFor(ctx, client, pod)
		}
	}
	if st, ok := s.resolver.(statsResolver); ok {
		if err := m.registerResolverStats(st); err != nil {
			return nil, err
		}
	}
	h.cluster = newCluster(opts.Client, s.minor, s.logf)
	h.mux = http.NewServeMux()
	h.mux.HandleFunc(MutatePath, h.review(MutatePath, h.Mutate))
	h.mux.HandleFunc(ValidatePath, h.review(ValidatePath, h.Validate))
	h.mux.HandleFunc(HealthzPath, func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	h.mux.HandleFunc(ReadyzPath, h.readyz)
	h.mux.Handle(MetricsPath, promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	return h, nil
}

// ServeHTTP routes /mutate, /validate, /healthz, /readyz and /metrics.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Ready reports whether the handler knows the cluster (nodes,
// RuntimeClasses, version); without a client it is ready at once. Until
// then decisions are made from the pod alone.
func (h *Handler) Ready() bool { return h.cluster.ready() }

// Close stops watching the cluster.
func (h *Handler) Close() { h.cluster.close() }

func (h *Handler) readyz(w http.ResponseWriter, _ *http.Request) {
	if !h.Ready() {
		http.Error(w, "waiting for the node and RuntimeClass caches", http.StatusServiceUnavailable)
		return
	}
	io.WriteString(w, "ok")
}

// decision is Mutate or Validate.
type decision func(context.Context, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse

// review decodes an AdmissionReview, runs the decision and writes the
// response. A body that is no AdmissionReview is a 400; a panic in the
// decision admits the object unchanged with a warning, so a bug in winkube
// never blocks the cluster.
func (h *Handler) review(path string, decide decision) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		result := h.serveReview(w, r, decide)
		h.metrics.requests.WithLabelValues(path, result).Inc()
		h.metrics.latency.WithLabelValues(path).Observe(time.Since(start).Seconds())
	}
}

func (h *Handler) serveReview(w http.ResponseWriter, r *http.Request, decide decision) string {
	if r.Method != http.MethodPost {
		http.Error(w, "POST an admission.k8s.io/v1 AdmissionReview", http.StatusMethodNotAllowed)
		return "bad-request"
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxReviewBytes+1))
	if err != nil || len(body) > maxReviewBytes {
		http.Error(w, "reading the AdmissionReview: body unreadable or over 8 MiB", http.StatusBadRequest)
		return "bad-request"
	}
	review := &admissionv1.AdmissionReview{}
	if err := json.Unmarshal(body, review); err != nil || review.Request == nil {
		msg := "no request in the AdmissionReview"
		if err != nil {
			msg = "decoding the AdmissionReview: " + err.Error()
		}
		http.Error(w, msg, http.StatusBadRequest)
		return "bad-request"
	}
	resp := h.safely(r.Context(), review.Request, decide)
	resp.UID = review.Request.UID
	out := admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Response: resp}
	data, err := json.Marshal(&out)
	if err != nil {
		http.Error(w, "encoding the response: "+err.Error(), http.StatusInternalServerError)
		return "error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
	switch {
	case !resp.Allowed:
		return "denied"
	case resp.Patch != nil:
		return "patched"
	case len(resp.Warnings) > 0:
		return "warned"
	}
	return "allowed"
}

// safely runs a decision, turning a panic into an admission with a warning.
func (h *Handler) safely(ctx context.Context, req *admissionv1.AdmissionRequest, decide decision) (resp *admissionv1.AdmissionResponse) {
	defer func() {
		if p := recover(); p != nil {
			h.metrics.panics.Inc()
			h.s.logf("webhook: panic deciding %s %s/%s: %v\n%s", req.Kind.Kind, req.Namespace, req.Name, p, debug.Stack())
			resp = allowWarn(req, fmt.Sprintf("winkube: internal error, admitted unchanged: %v", p))
		}
	}()
	return decide(ctx, req)
}

func allow(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
}

func allowWarn(req *admissionv1.AdmissionRequest, warnings ...string) *admissionv1.AdmissionResponse {
	resp := allow(req)
	if len(warnings) > 0 {
		resp.Warnings = warnings
	}
	return resp
}

// deny refuses with every reason; kubectl prints the message after
// `admission webhook "..." denied the request:`.
func deny(req *admissionv1.AdmissionRequest, reasons, warnings []string) *admissionv1.AdmissionResponse {
	resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: false, Result: &metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusForbidden,
		Reason:  metav1.StatusReasonForbidden,
		Message: "winkube " + strings.Join(reasons, "; "),
	}}
	if len(warnings) > 0 {
		resp.Warnings = warnings
	}
	return resp
}
