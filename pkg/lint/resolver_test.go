package lint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
	"github.com/winkube/winkube/pkg/lint/load"
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
	target, err := TargetFromCluster(v1alpha1.DefaultCluster())
	if err != nil {
		t.Fatal(err)
	}
	objs, errs := load.Load([]string{path}, load.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	resolver, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := New(target)
	l.UseResolver(context.Background(), resolver)
	r := l.Lint(objs)
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

// rule: IMG-3: a tag the Windows base images do not publish (no latest)
// cannot be pulled anywhere; lint says so as an error.
func TestLintMissingTag(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pod.yaml")
	manifest := `apiVersion: v1
kind: Pod
metadata: {name: untagged}
spec:
  nodeSelector: {kubernetes.io/os: windows}
  tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
  containers:
  - {name: app, image: mcr.microsoft.com/windows/servercore}
`
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	r := lintFiles(t, "", 0, path)
	for _, f := range r.Findings {
		if f.Rule == "IMG-3" && f.Severity == rules.SeverityError && strings.Contains(f.Message, "servercore:latest cannot be pulled") {
			return
		}
	}
	t.Errorf("no IMG-3 error for servercore without a tag:\n%s", dump(r))
}

// rule: IMG-3: a name in Docker Hub's library namespace that is no
// official image does not pull from the registry; lint warns (the image
// may have been loaded onto the nodes by hand).
func TestLintUnknownLibraryRepository(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pod.yaml")
	manifest := `apiVersion: v1
kind: Pod
metadata: {name: local}
spec:
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - {name: app, image: "webserver:404"}
`
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	r := lintFiles(t, "", 0, path)
	for _, f := range r.Findings {
		if f.Rule == "IMG-3" && f.Severity == rules.SeverityWarning && strings.Contains(f.Message, "docker.io/library/webserver:404 names no repository Docker Hub has") {
			return
		}
	}
	t.Errorf("no IMG-3 warning for webserver:404:\n%s", dump(r))
}
