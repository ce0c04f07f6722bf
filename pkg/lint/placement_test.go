package lint

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/winkube/winkube/pkg/lint/fix"
	"github.com/winkube/winkube/pkg/rules"
)

// findingsOf groups the rules reported per object name.
func findingsOf(r *Result) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, f := range r.Findings {
		if out[f.Name] == nil {
			out[f.Name] = map[string]bool{}
		}
		out[f.Name][f.Rule] = true
	}
	return out
}

// TestTaintDoesNotHideBuild: a 2019-only image that selects only
// kubernetes.io/os: windows and lacks the toleration gets both findings in
// one run, on the default cluster's 2019 and 2022 nodes.
// rule: SCH-3
// rule: IMG-2
func TestTaintDoesNotHideBuild(t *testing.T) {
	got := findingsOf(lintFiles(t, "", 0, filepath.Join("testdata", "golden", "taint-hides-build.yaml")))
	for _, name := range []string{"iis-2019", "agent-2019"} {
		if !got[name]["SCH-3"] || !got[name]["IMG-2"] {
			t.Errorf("%s: rules %v, want SCH-3 and IMG-2", name, got[name])
		}
	}
	// A pinned build, or an image every build runs, has only the taint
	// to fix.
	for _, name := range []string{"pinned-2019", "any-build"} {
		if !got[name]["SCH-3"] || got[name]["IMG-2"] {
			t.Errorf("%s: rules %v, want SCH-3 without IMG-2", name, got[name])
		}
	}
}

// TestMixedPodStillPlaced: LIM-1 does not stop the placement checks.
// rule: LIM-1
// rule: SCH-3
// rule: IMG-2
func TestMixedPodStillPlaced(t *testing.T) {
	got := findingsOf(lintFiles(t, "", 0, filepath.Join("testdata", "golden", "mixed-pod-placement.yaml")))
	if !got["mixed-untolerated"]["LIM-1"] || !got["mixed-untolerated"]["SCH-3"] {
		t.Errorf("mixed-untolerated: rules %v, want LIM-1 and SCH-3", got["mixed-untolerated"])
	}
	if !got["mixed-unpinned"]["LIM-1"] || !got["mixed-unpinned"]["IMG-2"] {
		t.Errorf("mixed-unpinned: rules %v, want LIM-1 and IMG-2", got["mixed-unpinned"])
	}
	// The Linux sidecar on Windows nodes is LIM-1 itself.
	if got["mixed-unpinned"]["IMG-4"] || got["mixed-unpinned"]["SCH-5"] {
		t.Errorf("mixed-unpinned: rules %v repeat LIM-1", got["mixed-unpinned"])
	}
}

// TestFixPinsBuild: --fix for SCH-3 adds the toleration and, where the
// images run on only some Windows builds, the windows-build selector, so
// a second run finds neither SCH-3 nor IMG-2.
// rule: SCH-3
// rule: IMG-2
func TestFixPinsBuild(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "golden", "taint-hides-build.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "taint-hides-build.yaml")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	r := lintFiles(t, "", 0, file)
	edits := make([]fix.Edit, 0, len(r.Edits))
	for _, e := range r.Edits {
		edits = append(edits, fix.Edit(e))
	}
	if err := fix.Apply(edits, false, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, f := range lintFiles(t, "", 0, file).Findings {
		if f.Severity == rules.SeverityError || f.Severity == rules.SeverityWarning {
			t.Errorf("after --fix: %s %s %s: %s", f.Name, f.Rule, f.Severity, f.Message)
		}
	}
}
