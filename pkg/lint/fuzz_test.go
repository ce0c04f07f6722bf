package lint

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/manifest"
)

// FuzzLint feeds arbitrary objects to every check: bad input must give
// findings or input errors, never a panic.
func FuzzLint(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "rules", "*.yaml"))
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err == nil {
			for _, doc := range manifest.SplitDocuments(data) {
				f.Add(doc.Data)
			}
		}
	}
	target, err := TargetFromCluster(v1alpha1.DefaultCluster())
	if err != nil {
		f.Fatal(err)
	}
	linter := New(target)
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]any
		if yaml.Unmarshal(data, &m) != nil || m == nil {
			return
		}
		obj := manifest.Object{File: "fuzz.yaml", Line: 1, Obj: &unstructured.Unstructured{Object: m}, Fixable: true}
		linter.Lint([]manifest.Object{obj, obj})
	})
}
