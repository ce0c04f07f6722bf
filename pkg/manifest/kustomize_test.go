package manifest

import (
	"path/filepath"
	"testing"
)

// Kustomize objects name the file and document they came from, carry no
// origin annotation of winkube's making, and generated objects stay with
// the kustomization directory.
func TestKustomizeObjectsKeepTheirSource(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "kustomization.yaml"), "nameSuffix: -v2\nresources:\n- app.yaml\nconfigMapGenerator:\n- name: settings\n  literals: [a=1]\n")
	writeFile(t, filepath.Join(dir, "app.yaml"), "# the app\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: web}\n")
	objs, errs := Load([]string{dir}, Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := map[string]Object{}
	for _, o := range objs {
		got[o.Obj.GetKind()] = o
		if _, ok := o.Obj.GetAnnotations()["config.kubernetes.io/origin"]; ok {
			t.Errorf("%s keeps the origin annotation winkube asked for", o.Obj.GetName())
		}
		if o.Fixable {
			t.Errorf("%s is Fixable; --fix does not edit a build's sources", o.Obj.GetName())
		}
	}
	app := filepath.Join(dir, "app.yaml")
	if s := got["Service"]; s.File != app || s.Line != 2 || s.Doc != 0 || s.Obj.GetName() != "web-v2" {
		t.Errorf("Service at %s:%d#%d (%s), want %s:2#0", s.File, s.Line, s.Doc, s.Obj.GetName(), app)
	}
	if s := got["ServiceAccount"]; s.File != app || s.Line != 7 || s.Doc != 1 {
		t.Errorf("ServiceAccount at %s:%d#%d, want %s:7#1", s.File, s.Line, s.Doc, app)
	}
	if cm := got["ConfigMap"]; cm.File != dir || cm.Doc != -1 {
		t.Errorf("generated ConfigMap at %s#%d, want the directory", cm.File, cm.Doc)
	}
}

// A kustomization that asks for origin annotations keeps them.
func TestKustomizeOriginAnnotationsAskedFor(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "kustomization.yaml"), "buildMetadata: [originAnnotations]\nresources:\n- app.yaml\n")
	writeFile(t, filepath.Join(dir, "app.yaml"), "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: web}\n")
	objs, errs := Load([]string{dir}, Options{})
	if len(errs) > 0 || len(objs) != 1 {
		t.Fatal(objs, errs)
	}
	if objs[0].Obj.GetAnnotations()["config.kubernetes.io/origin"] == "" {
		t.Error("origin annotation removed although the kustomization asks for it")
	}
}

func TestRendered(t *testing.T) {
	got := Rendered([]string{"testdata/repo", "testdata/repo/kustomize/base/kustomization.yaml", "-", "nope"})
	want := map[string]string{
		"testdata/repo/chart":             "helm",
		"testdata/repo/kustomize/base":    "kustomize",
		"testdata/repo/kustomize/overlay": "kustomize",
	}
	if len(got) != len(want) {
		t.Errorf("Rendered = %v, want %v", got, want)
	}
	for d, k := range want {
		if got[d] != k {
			t.Errorf("Rendered[%s] = %q, want %q", d, got[d], k)
		}
	}
}
