package main

import (
	"testing"
)

func TestParseWrites(t *testing.T) {
	raw := []byte(`# HELP apiserver_request_total Counter of apiserver requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 30
apiserver_request_total{code="409",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 2
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="POST",version="v1"} 10
apiserver_request_total{code="201",component="apiserver",dry_run="All",group="",resource="pods",scope="namespace",subresource="",verb="POST",version="v1"} 5
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="cluster",subresource="",verb="WATCH",version="v1"} 7
`)
	got, err := parseWrites(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := writes{"PATCH pods/status": 32, "POST pods": 10}
	if len(got) != len(want) || got["PATCH pods/status"] != 32 || got["POST pods"] != 10 {
		t.Errorf("parseWrites = %v, want %v (reads and dry runs left out, codes summed)", got, want)
	}
	per := got.perPod(writes{"PATCH pods/status": 12}, 10)
	if per["PATCH pods/status"] != 2 || per["POST pods"] != 1 {
		t.Errorf("perPod = %v, want 2 status patches and 1 create a pod", per)
	}
}

func TestWriteRowsOrder(t *testing.T) {
	rs := writeRows("writes", map[string]float64{"POST pods": 1, "PATCH pods/status": 3, "POST events": 0.001}, nil)
	var labels []string
	for _, r := range rs {
		labels = append(labels, r.label)
	}
	want := []string{"writes", "  PATCH pods/status", "  POST pods", "  total"}
	if len(labels) != len(want) {
		t.Fatalf("rows %q, want %q", labels, want)
	}
	for i := range want {
		if labels[i] != want[i] {
			t.Errorf("row %d = %q, want %q", i, labels[i], want[i])
		}
	}
	if rs[len(rs)-1].b != nil {
		t.Error("a setup not measured has no total")
	}
}
