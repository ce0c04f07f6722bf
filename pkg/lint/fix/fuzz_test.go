package fix

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/manifest"
)

// FuzzFix edits the pod spec at "spec" of the first document of arbitrary
// input. It must never panic; when the edit succeeds on a loadable file the
// result must still load and a second run must change nothing.
func FuzzFix(f *testing.F) {
	inputs, _ := filepath.Glob("testdata/*/input.yaml")
	for _, in := range inputs {
		if data, err := os.ReadFile(in); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("apiVersion: v1\nkind: Pod\nspec:\n  os: {}\n  tolerations: [ ]\n  nodeSelector: {} # c\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		edits := []Edit{{
			Doc: 0, PodSpec: []string{"spec"}, OS: "windows",
			NodeSelector: map[string]string{"kubernetes.io/os": "windows"},
			Tolerations:  []corev1.Toleration{{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}},
		}}
		out, _, err := fixFile("f.yaml", data, edits)
		if err != nil {
			return
		}
		if _, errs := parseFile(data); len(errs) > 0 {
			return // broken input may stay broken
		}
		if objs, errs := parseFile(out); len(errs) > 0 || len(objs) == 0 {
			t.Fatalf("fixed output does not load: %v\ninput:\n%s\noutput:\n%s", errs, data, out)
		}
		again, _, err := fixFile("f.yaml", out, edits)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("second fix changed the output (err %v)\nfirst:\n%s\nsecond:\n%s", err, out, again)
		}
	})
}

// parseFile loads bytes through the real loader via a temporary file.
func parseFile(data []byte) ([]manifest.Object, []error) {
	dir, err := os.MkdirTemp("", "fuzzfix")
	if err != nil {
		return nil, []error{err}
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "f.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return nil, []error{err}
	}
	return manifest.Load([]string{file}, manifest.Options{})
}
