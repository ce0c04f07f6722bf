package metrics

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	endpointsopenapi "k8s.io/apiserver/pkg/endpoints/openapi"
	"k8s.io/kube-openapi/pkg/builder"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/openapiconv"
	"k8s.io/kube-openapi/pkg/validation/spec"
	generatedopenapi "k8s.io/kubernetes/pkg/generated/openapi"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// The OpenAPI documents of metrics.k8s.io/v1beta1, which kube-apiserver's
// aggregator downloads from every APIService (/openapi/v2, then
// /openapi/v3 and the group version's document) to merge into its own, as
// metrics-server serves them. The schemas come from the definitions
// generated for k8s.io/metrics in k8s.io/kubernetes.

const openAPIV3Path = "apis/" + groupVersion

// openAPIDocs are the rendered documents, built once.
type openAPIDocs struct {
	v2, v3 []byte
	v3Hash string
	err    error
}

var (
	docsOnce sync.Once
	docs     openAPIDocs
)

func openAPI() openAPIDocs {
	docsOnce.Do(func() { docs = buildOpenAPI() })
	return docs
}

func buildOpenAPI() openAPIDocs {
	scheme := runtime.NewScheme()
	if err := metricsv1beta1.AddToScheme(scheme); err != nil {
		return openAPIDocs{err: err}
	}
	namer := endpointsopenapi.NewDefinitionNamer(scheme)
	cfg := &common.Config{
		Info:              &spec.Info{InfoProps: spec.InfoProps{Title: "metrics.k8s.io", Version: "v1beta1"}},
		GetDefinitions:    generatedopenapi.GetOpenAPIDefinitions,
		GetDefinitionName: namer.GetDefinitionName,
	}
	kinds := []any{metricsv1beta1.NodeMetrics{}, metricsv1beta1.NodeMetricsList{}, metricsv1beta1.PodMetrics{}, metricsv1beta1.PodMetricsList{}}
	var names []string
	for _, k := range kinds {
		names = append(names, k.(interface{ OpenAPIModelName() string }).OpenAPIModelName())
	}
	v2, err := builder.BuildOpenAPIDefinitionsForResources(cfg, names...)
	if err != nil {
		return openAPIDocs{err: fmt.Errorf("build metrics.k8s.io OpenAPI: %w", err)}
	}
	v2.Paths = metricsPaths(namer)
	out := openAPIDocs{}
	if out.v2, err = json.Marshal(v2); err != nil {
		return openAPIDocs{err: err}
	}
	if out.v3, err = json.Marshal(openapiconv.ConvertV2ToV3(v2)); err != nil {
		return openAPIDocs{err: err}
	}
	sum := sha512.Sum512(out.v3)
	out.v3Hash = fmt.Sprintf("%X", sum[:8])
	return out
}

// metricsPaths are the read-only endpoints the server answers.
func metricsPaths(namer *endpointsopenapi.DefinitionNamer) *spec.Paths {
	ref := func(model string) spec.Ref {
		name, _ := namer.GetDefinitionName(model)
		return spec.MustCreateRef("#/definitions/" + name)
	}
	get := func(id, kind, model string) spec.PathItem {
		ok := spec.Response{ResponseProps: spec.ResponseProps{Description: "OK", Schema: &spec.Schema{SchemaProps: spec.SchemaProps{Ref: ref(model)}}}}
		op := &spec.Operation{OperationProps: spec.OperationProps{
			ID: id, Description: "read " + kind, Produces: []string{"application/json"}, Schemes: []string{"https"},
			Responses: &spec.Responses{ResponsesProps: spec.ResponsesProps{StatusCodeResponses: map[int]spec.Response{
				http.StatusOK:           ok,
				http.StatusUnauthorized: {ResponseProps: spec.ResponseProps{Description: "Unauthorized"}},
			}}},
		}}
		action := "get"
		if strings.HasPrefix(id, "list") {
			action = "list"
		}
		op.AddExtension("x-kubernetes-action", action)
		op.AddExtension("x-kubernetes-group-version-kind", map[string]string{"group": "metrics.k8s.io", "version": "v1beta1", "kind": kind})
		return spec.PathItem{PathItemProps: spec.PathItemProps{Get: op}}
	}
	model := func(v any) string { return v.(interface{ OpenAPIModelName() string }).OpenAPIModelName() }
	base := "/apis/" + groupVersion
	return &spec.Paths{Paths: map[string]spec.PathItem{
		base + "/nodes":                              get("listMetricsV1beta1NodeMetrics", "NodeMetricsList", model(metricsv1beta1.NodeMetricsList{})),
		base + "/nodes/{name}":                       get("readMetricsV1beta1NodeMetrics", "NodeMetrics", model(metricsv1beta1.NodeMetrics{})),
		base + "/pods":                               get("listMetricsV1beta1PodMetricsForAllNamespaces", "PodMetricsList", model(metricsv1beta1.PodMetricsList{})),
		base + "/namespaces/{namespace}/pods":        get("listMetricsV1beta1NamespacedPodMetrics", "PodMetricsList", model(metricsv1beta1.PodMetricsList{})),
		base + "/namespaces/{namespace}/pods/{name}": get("readMetricsV1beta1NamespacedPodMetrics", "PodMetrics", model(metricsv1beta1.PodMetrics{})),
	}}
}

// openAPIV2 is GET /openapi/v2.
func (s *Server) openAPIV2(w http.ResponseWriter, r *http.Request) {
	d := openAPI()
	if d.err != nil {
		writeError(w, d.err)
		return
	}
	serveDoc(w, r, d.v2, "application/json")
}

// openAPIV3Root is GET /openapi/v3: where the group version's document is.
func (s *Server) openAPIV3Root(w http.ResponseWriter, _ *http.Request) {
	d := openAPI()
	if d.err != nil {
		writeError(w, d.err)
		return
	}
	writeJSON(w, http.StatusOK, handler3.OpenAPIV3Discovery{Paths: map[string]handler3.OpenAPIV3DiscoveryGroupVersion{
		openAPIV3Path: {ServerRelativeURL: "/openapi/v3/" + openAPIV3Path + "?hash=" + d.v3Hash},
	}})
}

// openAPIV3 is GET /openapi/v3/apis/metrics.k8s.io/v1beta1.
func (s *Server) openAPIV3(w http.ResponseWriter, r *http.Request) {
	d := openAPI()
	if d.err != nil {
		writeError(w, d.err)
		return
	}
	serveDoc(w, r, d.v3, "application/json")
}

// serveDoc writes a document with an ETag, answering a matching
// If-None-Match with 304 as the aggregator expects.
func serveDoc(w http.ResponseWriter, r *http.Request, doc []byte, contentType string) {
	sum := sha512.Sum512(doc)
	etag := fmt.Sprintf("\"%X\"", sum[:16])
	w.Header().Set("Etag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", contentType)
	_, _ = w.Write(doc)
}
