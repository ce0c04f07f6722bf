package webhook

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
)

// Images only a registry knows are placed from what the registry says,
// and the second decision is answered from the resolver's cache, which
// /metrics shows.
// rule: IMG-2, IMG-3
func TestPlacesFromRegistry(t *testing.T) {
	reg := registrytest.Start(t)
	reg.PushFixtures(t)
	resolver, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := newTestHandler(t, Options{Resolver: resolver}, mixedNodes())
	for _, tc := range []struct {
		repoTag string
		os      string
		builds  []string
	}{
		{registrytest.Servercore2019, "windows", []string{build2019}},
		{registrytest.Single2022, "windows", []string{build2022}},
		{registrytest.NoOSVersion, "windows", nil},
		{registrytest.MultiArch, "linux", nil},
	} {
		for pass := 0; pass < 2; pass++ {
			req := podRequest(t, "metadata: {name: a}\nspec:\n  containers: [{name: a, image: \""+reg.Ref(tc.repoTag)+"\"}]")
			pod := patched(t, req, h.Mutate(ctx, req))
			if pod.Spec.NodeSelector[corev1.LabelOSStable] != tc.os {
				t.Errorf("%s: selector %v, want %s", tc.repoTag, pod.Spec.NodeSelector, tc.os)
			}
			var builds []string
			for _, term := range requiredTerms(pod.Spec.Affinity) {
				builds = append(builds, term.MatchExpressions[0].Values...)
			}
			if !reflect.DeepEqual(builds, tc.builds) {
				t.Errorf("%s: builds %v, want %v", tc.repoTag, builds, tc.builds)
			}
			source := "(registry)"
			if pass == 1 {
				source = "(cache)"
			}
			if note := pod.Annotations[PlacedByAnnotation]; !strings.Contains(note, source) {
				t.Errorf("%s pass %d: annotation %q does not say %s", tc.repoTag, pass, note, source)
			}
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, MetricsPath, nil))
	for _, want := range []string{"winkube_resolver_cache_hits_total 4", `winkube_webhook_image_answers_total{source="cache"} 4`} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// A registry slower than the decision's budget: the decision goes on with
// the catalog's answer (here: unknown, so no placement) and a warning.
// rule: IMG-3
func TestSlowRegistryDoesNotBlock(t *testing.T) {
	host := registrytest.Slow(t, time.Minute)
	resolver, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := newTestHandler(t, Options{Resolver: resolver, RegistryTimeout: 100 * time.Millisecond}, mixedNodes())
	resp := h.Mutate(ctx, podRequest(t, "metadata: {name: a}\nspec:\n  containers: [{name: a, image: \""+host+"/team/app:v1\"}]"))
	if !resp.Allowed || resp.Patch != nil || !warningWith(resp, host+"/team/app:v1") {
		t.Errorf("allowed=%v patch=%s warnings=%q", resp.Allowed, resp.Patch, resp.Warnings)
	}
}
