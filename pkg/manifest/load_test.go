package manifest

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// summary renders an object as "file:line#doc Kind/name" (+ " @root" for
// objects inside a document, " fix" when fixable), which keeps the table
// tests readable.
func summary(o Object) string {
	s := fmt.Sprintf("%s:%d#%d %s/%s", filepath.ToSlash(o.File), o.Line, o.Doc, o.Obj.GetKind(), o.Obj.GetName())
	if o.Root != "" {
		s += " @" + o.Root
	}
	if o.Fixable {
		s += " fix"
	}
	return s
}

func summaries(objs []Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, summary(o))
	}
	return out
}

func errStrings(errs []error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, filepath.ToSlash(e.Error()))
	}
	return out
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		opts  Options
		want  []string
		errs  []string // substrings, in order
	}{{
		name:  "multi-document YAML with comments, blank documents and separator comments",
		paths: []string{"testdata/multi.yaml"},
		want: []string{
			"testdata/multi.yaml:3#0 Pod/first fix",
			"testdata/multi.yaml:16#1 Deployment/second fix",
			"testdata/multi.yaml:29#2 Service/third fix",
		},
	}, {
		name:  "broken YAML: the error names the line and the other documents still load",
		paths: []string{"testdata/broken.yaml"},
		want: []string{
			"testdata/broken.yaml:1#0 ConfigMap/good-before fix",
			"testdata/broken.yaml:14#2 ConfigMap/good-after fix",
		},
		errs: []string{
			"testdata/broken.yaml:10: yaml: did not find expected ',' or ']'",
			"testdata/broken.yaml:19: missing kind",
			"testdata/broken.yaml:22: document is a scalar, not an object",
		},
	}, {
		name:  "List kinds are flattened and each item has its own line and root",
		paths: []string{"testdata/list.yaml"},
		want: []string{
			"testdata/list.yaml:4#0 Pod/a @items[0] fix",
			"testdata/list.yaml:8#0 Pod/b @items[1] fix",
			"testdata/list.yaml:16#1 Pod/c @items[0] fix",
		},
	}, {
		name:  "JSON object and array",
		paths: []string{"testdata/single.json", "testdata/array.json"},
		want: []string{
			"testdata/array.json:1#0 Pod/p1 @[0]",
			"testdata/array.json:1#0 Pod/p2 @[1]",
			"testdata/single.json:1#0 Pod/json-pod",
		},
	}, {
		name:  "JSON syntax error",
		paths: []string{"testdata/badjson.json"},
		errs:  []string{"testdata/badjson.json:4: json: invalid character '}'"},
	}, {
		name:  "stdin",
		paths: []string{"-"},
		opts:  Options{Stdin: strings.NewReader("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: in\n")},
		want:  []string{"<stdin>:2#0 Pod/in"},
	}, {
		name:  "directory walk skips hidden entries and non-manifests",
		paths: []string{"testdata/tree"},
		want: []string{
			"testdata/tree/a.yaml:1#0 Pod/tree-a fix",
			"testdata/tree/sub/b.yml:1#0 Pod/tree-b fix",
		},
	}, {
		name:  "missing path",
		paths: []string{"testdata/nope.yaml", "testdata/tree/a.yaml"},
		want:  []string{"testdata/tree/a.yaml:1#0 Pod/tree-a fix"},
		errs:  []string{"testdata/nope.yaml: stat testdata/nope.yaml: no such file or directory"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, errs := Load(tt.paths, tt.opts)
			assertLines(t, "objects", summaries(objs), tt.want, false)
			assertLines(t, "errors", errStrings(errs), tt.errs, true)
			for _, err := range errs {
				var ie *InputError
				if !errors.As(err, &ie) {
					t.Errorf("error %v is not an *InputError", err)
				}
			}
		})
	}
}

// assertLines compares got with want, exactly or (prefix) by substring.
func assertLines(t *testing.T, what string, got, want []string, substr bool) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i] == want[i] || (substr && strings.Contains(got[i], want[i]))
	}
	if !ok {
		t.Errorf("%s:\ngot:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestLoadValues(t *testing.T) {
	objs, errs := Load([]string{"testdata/multi.yaml", "testdata/single.json"}, Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	dep := objs[1].Obj.Object
	spec := dep["spec"].(map[string]any)
	if got := spec["replicas"]; got != int64(2) {
		t.Errorf("replicas = %#v, want int64(2)", got)
	}
	podSpec := spec["template"].(map[string]any)["spec"].(map[string]any)
	if got := podSpec["hostNetwork"]; got != true {
		t.Errorf("hostNetwork: yes = %#v, want true (kubectl reads YAML 1.1 booleans)", got)
	}
	img := podSpec["containers"].([]any)[0].(map[string]any)["image"]
	if img != "mcr.microsoft.com/windows/nanoserver:ltsc2022" {
		t.Errorf("image = %#v", img)
	}
	jsonPod := objs[3].Obj
	if got := jsonPod.Object["spec"].(map[string]any)["terminationGracePeriodSeconds"]; got != int64(30) {
		t.Errorf("JSON number = %#v, want int64(30)", got)
	}
	// The objects must survive a deep copy, which panics on non-JSON types.
	for _, o := range objs {
		o.Obj.DeepCopy()
	}
}

func TestLoadHelmAndKustomize(t *testing.T) {
	objs, errs := Load([]string{"testdata/repo"}, Options{
		ValueFiles: []string{"testdata/helm-values.yaml"},
		Set:        []string{"windows=true"},
		Namespace:  "web",
	})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []string{
		"testdata/repo/chart/templates/deployment.yaml:0#-1 Deployment/release-name-webapp",
		"testdata/repo/chart/templates/service.yaml:0#-1 Service/release-name-webapp",
		"testdata/repo/chart/templates/service.yaml:0#-1 ConfigMap/release-name-webapp-config",
		// Kustomize objects are placed in the file they came from.
		"testdata/repo/kustomize/base/deployment.yaml:1#0 Deployment/iis",
		"testdata/repo/kustomize/base/deployment.yaml:1#0 Deployment/prod-iis",
		"testdata/repo/plain.yaml:1#0 Namespace/plain fix",
	}
	assertLines(t, "objects", summaries(objs), want, false)

	dep := objs[0].Obj
	if dep.GetNamespace() != "web" {
		t.Errorf("namespace = %q, want the release namespace", dep.GetNamespace())
	}
	if r, _, _ := unstructuredInt(dep.Object, "spec", "replicas"); r != 5 {
		t.Errorf("replicas = %d, want 5 from --values", r)
	}
	if sel := nodeSelector(dep.Object); sel != "windows" {
		t.Errorf("nodeSelector = %q, want windows from --set", sel)
	}
	if cm := objs[2].Obj.Object["data"].(map[string]any)["replicas"]; cm != "5" {
		t.Errorf("quoted value = %#v, want string", cm)
	}
	overlay := objs[4].Obj
	if r, _, _ := unstructuredInt(overlay.Object, "spec", "replicas"); r != 3 {
		t.Errorf("overlay replicas = %d, want 3 from the patch", r)
	}
	if sel := nodeSelector(overlay.Object); sel != "windows" {
		t.Errorf("overlay nodeSelector = %q, want windows from the patch", sel)
	}
	for _, o := range objs {
		o.Obj.DeepCopy()
	}
}

func TestLoadHelmErrors(t *testing.T) {
	_, errs := Load([]string{"testdata/repo/chart"}, Options{Set: []string{"novalue"}})
	assertLines(t, "errors", errStrings(errs), []string{`testdata/repo/chart: helm --set "novalue": key "novalue" has no value`}, true)

	_, errs = Load([]string{"testdata/repo/chart/Chart.yaml"}, Options{ValueFiles: []string{"testdata/missing.yaml"}})
	assertLines(t, "errors", errStrings(errs), []string{"testdata/repo/chart: helm --values: open testdata/missing.yaml"}, true)
}

func TestLoadKustomizeError(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "kustomization.yaml"), "resources:\n- missing.yaml\n")
	_, errs := Load([]string{dir}, Options{})
	assertLines(t, "errors", errStrings(errs), []string{filepath.ToSlash(dir) + ": kustomize build:"}, true)
}

func unstructuredInt(obj map[string]any, path ...string) (int64, bool, error) {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return 0, false, nil
		}
		cur = m[p]
	}
	i, ok := cur.(int64)
	return i, ok, nil
}

func nodeSelector(obj map[string]any) string {
	spec := obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	sel, _ := spec["nodeSelector"].(map[string]any)
	s, _ := sel["kubernetes.io/os"].(string)
	return s
}
