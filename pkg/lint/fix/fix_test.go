package fix

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/manifest"
)

var update = flag.Bool("update", false, "rewrite the golden want.yaml and want.diff files")

// TestGolden runs each testdata case: input.yaml plus edits.json must give
// want.yaml, and the dry run must print want.diff.
func TestGolden(t *testing.T) {
	cases, _ := filepath.Glob("testdata/*/input.yaml")
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	for _, in := range cases {
		dir := filepath.Dir(in)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			input := readFile(t, in)
			file := filepath.Join(t.TempDir(), "input.yaml")
			writeFile(t, file, input)
			edits := readEdits(t, filepath.Join(dir, "edits.json"), file)

			var diff bytes.Buffer
			if err := Apply(edits, true, &diff); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, file); !bytes.Equal(got, input) {
				t.Fatal("dry run changed the file")
			}
			gotDiff := strings.ReplaceAll(diff.String(), filepath.ToSlash(filepath.Dir(file))+"/", "")

			var summary bytes.Buffer
			if err := Apply(edits, false, &summary); err != nil {
				t.Fatal(err)
			}
			got := readFile(t, file)
			golden(t, filepath.Join(dir, "want.yaml"), got)
			golden(t, filepath.Join(dir, "want.diff"), []byte(gotDiff))
			if !strings.Contains(summary.String(), "fixed") {
				t.Errorf("summary %q does not report the fix", summary.String())
			}
			checkIdempotent(t, file, edits, got)
			checkLoads(t, file)
		})
	}
}

// TestUntouchedLinesKept checks that, outside the flow-style fallback,
// fixing only inserts lines: every input line survives byte for byte and
// in order.
func TestUntouchedLinesKept(t *testing.T) {
	for _, name := range []string{"deployment", "pod-existing", "cronjob-crlf", "empty-values", "multi-doc"} {
		in := readFile(t, filepath.Join("testdata", name, "input.yaml"))
		want := readFile(t, filepath.Join("testdata", name, "want.yaml"))
		for _, o := range diffLines(strings.Split(string(in), "\n"), strings.Split(string(want), "\n")) {
			if o.kind == opDelete {
				t.Errorf("%s: input line %q was changed", name, o.text)
			}
		}
	}
}

func checkIdempotent(t *testing.T, file string, edits []Edit, first []byte) {
	t.Helper()
	var out bytes.Buffer
	if err := Apply(edits, false, &out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, file), first) {
		t.Errorf("second Apply changed the file again")
	}
	if !strings.Contains(out.String(), "no changes") {
		t.Errorf("second Apply summary = %q, want no changes", out.String())
	}
}

// checkLoads makes sure the fixed file is still valid for the loader.
func checkLoads(t *testing.T, file string) {
	t.Helper()
	if _, errs := manifest.Load([]string{file}, manifest.Options{}); len(errs) > 0 {
		t.Errorf("fixed file does not load: %v", errs)
	}
}

func TestApplyErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	writeFile(t, good, []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: []\n"))
	edits := []Edit{
		{File: filepath.Join(dir, "missing.yaml"), Doc: 0, PodSpec: []string{"spec"}, OS: "windows"},
		{File: good, Doc: 3, PodSpec: []string{"spec"}, OS: "windows"},
		{File: good, Doc: 0, PodSpec: []string{"spec", "template", "spec"}, OS: "windows"},
	}
	err := Apply(edits, false, &bytes.Buffer{})
	for _, want := range []string{"missing.yaml: no such file", "no document 3"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not mention %q", err, want)
		}
	}
	err = Apply(edits[2:], false, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "good.yaml:1: no pod spec (a mapping) at spec.template.spec") {
		t.Errorf("error = %v", err)
	}
}

func TestApplyKeepsMode(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p.yaml")
	writeFile(t, file, []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: []\n"))
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Apply([]Edit{{File: file, PodSpec: []string{"spec"}, OS: "windows"}}, false, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", info.Mode().Perm())
	}
	if got := string(readFile(t, file)); !strings.Contains(got, "spec:\n  os:\n    name: windows\n  containers: []") {
		t.Errorf("got:\n%s", got)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(file), ".*winkube-fix*"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func readEdits(t *testing.T, path, file string) []Edit {
	t.Helper()
	var edits []Edit
	if err := json.Unmarshal(readFile(t, path), &edits); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for i := range edits {
		edits[i].File = file
	}
	return edits
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		writeFile(t, path, got)
		return
	}
	want := readFile(t, path)
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (rerun with -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
