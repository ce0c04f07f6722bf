package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fetch saves a profile, reports an endpoint's refusal with its status and
// words, and leaves no file behind for a profile it did not get.
func TestProfileFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/debug/pprof/heap" {
			_, _ = w.Write([]byte("profile bytes"))
			return
		}
		http.Error(w, "forbidden: User cannot get path /debug/pprof/profile", http.StatusForbidden)
	}))
	defer srv.Close()
	target := profileTarget{name: "kube-apiserver", base: srv.URL + "/debug/pprof", client: srv.Client()}
	dir := t.TempDir()

	heap := filepath.Join(dir, "heap.pb.gz")
	if err := target.fetch(context.Background(), "/heap", heap); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(heap); string(got) != "profile bytes" {
		t.Errorf("saved %q", got)
	}

	cpu := filepath.Join(dir, "cpu.pb.gz")
	err := target.fetch(context.Background(), "/profile?seconds=10", cpu)
	if err == nil || !strings.Contains(err.Error(), "403 Forbidden: forbidden: User cannot get path") {
		t.Errorf("err = %v, want the 403 and its message", err)
	}
	if _, err := os.Stat(cpu); !os.IsNotExist(err) {
		t.Errorf("a refused profile left %s behind", cpu)
	}
}

// Without -profile the profiler is nil and profiles nothing.
func TestNilProfiler(t *testing.T) {
	var p *profiler
	if err := p.cpu(context.Background(), "running")(); err != nil {
		t.Error(err)
	}
	if err := p.heap(context.Background(), "running"); err != nil {
		t.Error(err)
	}
}
