package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
)

// writes counts kube-apiserver's mutating requests by kind ("PATCH
// pods/status"), read from its apiserver_request_total counter. Unlike
// wall time and CPU, the writes a pod costs do not depend on how busy the
// machine is, so a change in them is a cause, not noise.
type writes map[string]float64

var mutating = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "APPLY": true, "DELETE": true, "DELETECOLLECTION": true}

// apiWrites reads the counter now.
func apiWrites(ctx context.Context, client kubernetes.Interface) (writes, error) {
	raw, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading kube-apiserver's /metrics: %w", err)
	}
	return parseWrites(raw)
}

func parseWrites(raw []byte) (writes, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("parsing kube-apiserver's /metrics: %w", err)
	}
	out := writes{}
	f := families["apiserver_request_total"]
	if f == nil {
		return out, nil
	}
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if !mutating[labels["verb"]] || labels["dry_run"] != "" {
			continue
		}
		kind := labels["resource"]
		if sub := labels["subresource"]; sub != "" {
			kind += "/" + sub
		}
		out[labels["verb"]+" "+kind] += m.GetCounter().GetValue()
	}
	return out, nil
}

// perPod is the growth from before to w, divided by pods.
func (w writes) perPod(before writes, pods int) map[string]float64 {
	out := map[string]float64{}
	for k, v := range w {
		if d := v - before[k]; d > 0 {
			out[k] = d / float64(pods)
		}
	}
	return out
}

// writeRows lists the kinds of write either setup made at least once in
// a hundred pods, most frequent (in winkube's run) first, and their total.
func writeRows(heading string, a, b map[string]float64) []row {
	var kinds []string
	for _, m := range []map[string]float64{a, b} {
		for k, v := range m {
			if v >= 0.01 && !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
	}
	slices.SortFunc(kinds, func(x, y string) int {
		if a[x] != a[y] {
			if a[x] > a[y] {
				return -1
			}
			return 1
		}
		return strings.Compare(x, y)
	})
	out := []row{{label: heading}}
	for _, k := range kinds {
		r := row{label: "  " + k, unit: &perPod}
		if a != nil {
			r.a = val(a[k])
		}
		if b != nil {
			r.b = val(b[k])
		}
		out = append(out, r)
	}
	total := row{label: "  total", unit: &perPod}
	if a != nil {
		total.a = val(sum(a))
	}
	if b != nil {
		total.b = val(sum(b))
	}
	return append(out, total)
}

// writesSince reads the counter again and returns the writes per pod
// since before. The nodes' own writes (leases, node status) in that time
// count too, as they do in a user's cluster.
func writesSince(ctx context.Context, client kubernetes.Interface, before writes, pods int) (map[string]float64, error) {
	now, err := apiWrites(ctx, client)
	if err != nil {
		return nil, err
	}
	return now.perPod(before, pods), nil
}
