package workloads

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestCorpusIsVerbatim: testdata holds the corpus of ../shared/workloads
// byte for byte (CI runs a clean clone, which has no ../shared), and no
// file the corpus lacks besides testdata/extra (this package's cluster
// configs and the seed's RuntimeClass).
func TestCorpusIsVerbatim(t *testing.T) {
	shared := filepath.Join(repoRoot, "..", "shared", "workloads")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("no corpus to compare with at %s", shared)
	}
	seen := map[string]bool{}
	err := filepath.WalkDir(shared, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(shared, path)
		seen[rel] = true
		want, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		got, err := os.ReadFile(filepath.Join(testdata, rel))
		if err != nil {
			t.Errorf("corpus file %s is not in testdata: %v", rel, err)
		} else if !bytes.Equal(got, want) {
			t.Errorf("testdata/%s differs from %s: copy it again", rel, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(testdata, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(testdata, path)
		if d.IsDir() && rel == "extra" {
			return filepath.SkipDir
		}
		if !d.IsDir() && !seen[rel] {
			t.Errorf("testdata/%s is not in the corpus %s", rel, shared)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
