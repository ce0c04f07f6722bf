package agreement

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/lint"
	"github.com/winkube/winkube/pkg/lint/fix"
	"github.com/winkube/winkube/pkg/manifest"
)

// TestLintFixLeadsNowhere applies `lint --fix` to every input and lints
// the result again: the fix removes findings and adds none.
func TestLintFixLeadsNowhere(t *testing.T) {
	target := cluster(t, kubeversion.DefaultMinor)
	fixed := 0
	for _, in := range loadInputs(t) {
		before, _ := lintVerdicts(target, in.objs)
		file := filepath.Join(t.TempDir(), filepath.Base(in.file))
		data, err := os.ReadFile(in.file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		objs, _ := manifest.Load([]string{file}, manifest.Options{})
		edits := lint.New(target).Lint(objs).Edits
		if len(edits) == 0 {
			continue
		}
		if err := fix.Apply(fixEdits(edits), false, io.Discard); err != nil {
			t.Fatalf("%s: lint --fix: %v", in.file, err)
		}
		fixed++
		again, errs := manifest.Load([]string{file}, manifest.Options{})
		if len(errs) > 0 {
			t.Fatalf("%s: the fixed file does not load: %v", in.file, errs)
		}
		after, _ := lintVerdicts(target, again)
		reportNew(t, "lint --fix of "+in.file, before, after)
	}
	if fixed < 5 {
		t.Errorf("lint --fix changed only %d inputs", fixed)
	}
}

// TestWebhookPlacementLeadsNowhere lints each pod the mutating webhook
// placed: what it added (SCH-5, IMG-2, SCH-3, SCH-2) brings no finding
// lint did not already make on the pod as written.
func TestWebhookPlacementLeadsNowhere(t *testing.T) {
	target := cluster(t, kubeversion.DefaultMinor)
	h := newWebhook(t, target, nil)
	placed := 0
	for _, in := range loadInputs(t) {
		if len(runtimeClassesOf(in.objs)) > 0 {
			continue // the shared webhook does not know the input's RuntimeClasses
		}
		for _, w := range workloadsOf(in.objs) {
			a := admit(t, h, w)
			if len(a.placed) == 0 {
				continue
			}
			placed++
			before, _ := lintVerdicts(target, podObjects(t, w.podOf("", 0)))
			if a.refused != "" {
				// An image that runs on no node: the webhook places the
				// pod on its OS and warns with the rule it then breaks.
				before.add(w.key(), a.refused)
			}
			after, _ := lintVerdicts(target, podObjects(t, a.pod))
			reportNew(t, "the webhook's placement of "+w.key()+" in "+in.file, before, after)
		}
	}
	if placed < 10 {
		t.Errorf("the webhook placed only %d pods", placed)
	}
}

// podObjects is a pod as lint loads it.
func podObjects(t *testing.T, pod runtime.Object) []manifest.Object {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion("v1")
	u.SetKind("Pod")
	return []manifest.Object{{File: "pod.yaml", Doc: -1, Obj: u}}
}

// reportNew fails for every rule an object has after the change and did
// not have before.
func reportNew(t *testing.T, what string, before, after verdicts) {
	t.Helper()
	for key, rs := range after {
		for r := range rs {
			if !before[key][r] {
				t.Errorf("%s: %s now breaks %s", what, key, r)
			}
		}
	}
}

func fixEdits(edits []lint.Edit) []fix.Edit {
	out := make([]fix.Edit, 0, len(edits))
	for _, e := range edits {
		out = append(out, fix.Edit{File: e.File, Doc: e.Doc, PodSpec: e.PodSpec, OS: e.OS, NodeSelector: e.NodeSelector, Tolerations: e.Tolerations})
	}
	return out
}
