package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
	"github.com/winkube/winkube/pkg/manifest"
	"github.com/winkube/winkube/pkg/rules"
)

// rule: IMG-2, IMG-3: with --resolve-images registry an image the catalog
// does not know is read from its registry, so a 2022-only index pinned to
// Windows is checked against the 2019 nodes (IMG-2) instead of being
// reported as unknown; an image the registry cannot answer for stays an
// IMG-3 info that names the registry's error.
func TestLintWithRegistryResolver(t *testing.T) {
	reg := registrytest.Start(t)
	app := reg.Ref("team/winapp:1.0")
	reg.PushIndex(t, "team/winapp:1.0", registrytest.Windows("10.0.20348.2227"))
	missing := reg.Ref("team/gone:1.0")
	dir := t.TempDir()
	manifest := strings.NewReplacer("APP", app, "GONE", missing).Replace(`apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  nodeSelector: {kubernetes.io/os: windows}
  tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
  containers:
  - {name: app, image: APP}
  - {name: gone, image: GONE}
`)
	path := filepath.Join(dir, "pod.yaml")
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	r := lintWithRegistry(t, path)
	var img2, img3 bool
	for _, f := range r.Findings {
		switch {
		case f.Rule == "IMG-2" && strings.Contains(f.Message, app) && strings.Contains(f.Message, "10.0.17763"):
			img2 = true
		case f.Rule == "IMG-3" && strings.Contains(f.Message, missing) && strings.Contains(f.Message, "registry did not answer"):
			img3 = true
		case f.Rule == "IMG-3" && strings.Contains(f.Message, app):
			t.Errorf("the registry's image was reported unknown: %s", f.Message)
		}
	}
	if !img2 || !img3 {
		t.Errorf("want IMG-2 for %s and IMG-3 naming the registry error for %s:\n%s", app, missing, dump(r))
	}
}

// rule: IMG-3: an image that cannot be pulled. A tag the Windows base
// images do not publish (no latest) cannot be pulled anywhere: an error. A
// name in Docker Hub's library namespace that is no official image does
// not pull from the registry: a warning (the image may have been loaded
// onto the nodes by hand).
func TestLintUnpullableImages(t *testing.T) {
	for _, tc := range []struct {
		image, selector string
		severity        rules.Severity
		message         string
	}{
		{"mcr.microsoft.com/windows/servercore", "windows", rules.SeverityError, "servercore:latest cannot be pulled"},
		{"webserver:404", "linux", rules.SeverityWarning, "docker.io/library/webserver:404 names no repository Docker Hub has"},
	} {
		path := filepath.Join(t.TempDir(), "pod.yaml")
		manifest := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: unpullable}
spec:
  nodeSelector: {kubernetes.io/os: %s}
  tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
  containers:
  - {name: app, image: "%s"}
`, tc.selector, tc.image)
		if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		r := lintFiles(t, "", 0, path)
		if !slices.ContainsFunc(r.Findings, func(f Finding) bool {
			return f.Rule == "IMG-3" && f.Severity == tc.severity && strings.Contains(f.Message, tc.message)
		}) {
			t.Errorf("%s: no IMG-3 %s %q:\n%s", tc.image, tc.severity, tc.message, dump(r))
		}
	}
}

// lintWithRegistry lints path against the default cluster, reading images
// from their registries (--resolve-images registry).
func lintWithRegistry(t *testing.T, path string) *Result {
	t.Helper()
	target, err := TargetFromCluster(v1alpha1.DefaultCluster())
	if err != nil {
		t.Fatal(err)
	}
	objs, errs := manifest.Load([]string{path}, manifest.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	resolver, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := New(target)
	l.UseResolver(context.Background(), resolver)
	return l.Lint(objs)
}
