package metrics_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// kube-apiserver merges the metrics API's OpenAPI documents into its own:
// the aggregated v2 document and the group version's v3 document name the
// metrics.k8s.io kinds, so the aggregator has nothing to complain about.
func TestOpenAPIAggregated(t *testing.T) {
	needCluster(t)
	const nodeMetrics = "io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics"
	waitFor(t, 90*time.Second, "NodeMetrics in the aggregated /openapi/v2", func(ctx context.Context) (bool, error) {
		raw, err := rawREST.Get().AbsPath("/openapi/v2").SetHeader("Accept", "application/json").DoRaw(ctx)
		return err == nil && strings.Contains(string(raw), `"`+nodeMetrics+`"`), nil
	})
	var doc struct {
		OpenAPI    string `json:"openapi"`
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
		Paths map[string]json.RawMessage `json:"paths"`
	}
	waitFor(t, 90*time.Second, "the metrics.k8s.io v3 document", func(ctx context.Context) (bool, error) {
		raw, err := rawREST.Get().AbsPath("/openapi/v3/apis/metrics.k8s.io/v1beta1").SetHeader("Accept", "application/json").DoRaw(ctx)
		return err == nil && json.Unmarshal(raw, &doc) == nil && doc.Components.Schemas[nodeMetrics] != nil, nil
	})
	if !strings.HasPrefix(doc.OpenAPI, "3.") || doc.Paths["/apis/metrics.k8s.io/v1beta1/nodes"] == nil {
		t.Errorf("v3 document: openapi %q, paths %d; want 3.x with the nodes path", doc.OpenAPI, len(doc.Paths))
	}
}
