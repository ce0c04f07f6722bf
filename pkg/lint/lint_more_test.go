package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/manifest"
	"github.com/winkube/winkube/pkg/rules"
)

// The annotation winkube.io/ignore silences the rules it names and no others.
func TestIgnoreAnnotation(t *testing.T) {
	r := lintFiles(t, "", 0, filepath.Join("testdata", "rules", "ignore.yaml"))
	got := rulesOf(r)
	if got["SCH-3"] != 0 || got["LIM-19"] != 0 {
		t.Errorf("ignored rules reported:\n%s", dump(r))
	}
	// The silenced findings still show in the summary, so nothing is hidden.
	// The file breaks SCH-3 (no toleration) and follows LIM-19.
	if r.Ignored != 1 || r.Summary().Ignored != 1 {
		t.Errorf("ignored = %d (summary %d), want 1 (SCH-3)", r.Ignored, r.Summary().Ignored)
	}
	if len(r.Edits) != 0 {
		t.Errorf("an ignored placement failure was fixed: %+v", r.Edits)
	}
}

// rule: SCH-4
// A RuntimeClass that is neither in the input nor in a live cluster: the
// pod's placement is unknown, said as a warning.
func TestMissingRuntimeClass(t *testing.T) {
	r := lintFiles(t, "", 0, filepath.Join("testdata", "missing-runtimeclass.yaml"))
	var found bool
	for _, f := range r.Findings {
		if f.Rule == "SCH-4" && f.Severity == rules.SeverityWarning && strings.Contains(f.Message, `"windows-2025"`) {
			found = true
		}
	}
	if !found {
		t.Errorf("no SCH-4 warning:\n%s", dump(r))
	}
}

// Every finding names a rule the reporters know, a field and a fix.
func TestFindingsAreComplete(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "rules", "*-bad.yaml"))
	for _, tc := range ruleCases {
		cluster := ""
		if tc.cluster != "" {
			cluster = filepath.Join("testdata", "clusters", tc.cluster+".yaml")
		}
		r := lintFiles(t, cluster, tc.minor, filepath.Join("testdata", "rules", tc.bad))
		for _, f := range r.Findings {
			if RuleDescription(f.Rule) == f.Rule {
				t.Errorf("%s: rule %s has no description", tc.bad, f.Rule)
			}
			if f.Fix == "" || f.Message == "" || f.Line < 1 || f.Name == "" {
				t.Errorf("%s: incomplete finding %+v", tc.bad, f)
			}
		}
	}
	if len(files) != len(ruleCases) {
		t.Errorf("%d bad manifests but %d rule cases", len(files), len(ruleCases))
	}
}

// A value of the wrong type is an input error that names the file, the
// field's line and the field; the other objects are still checked.
func TestWrongTypesNameTheField(t *testing.T) {
	r := lintFiles(t, "", 0, filepath.Join("testdata", "input", "wrong-types.yaml"))
	want := []string{
		"wrong-types.yaml:8: decoding Deployment list-as-string: spec.template.spec.containers: got a string, want a list",
		"wrong-types.yaml:15: decoding Service ports-as-object: spec.ports: got an object, want a list",
	}
	if len(r.Errors) != len(want) {
		t.Fatalf("errors = %v, want %d", r.Errors, len(want))
	}
	for i, e := range r.Errors {
		if !strings.HasSuffix(e.Error(), want[i]) {
			t.Errorf("error %d = %q, want it to end with %q", i, e, want[i])
		}
	}
	if r.Objects != 3 {
		t.Errorf("objects checked = %d, want 3", r.Objects)
	}
}

// Items of a JSON List are reported at their own lines too: the loader
// knows only the List's line, the finding's field or item finds the rest.
func TestJSONListItemLines(t *testing.T) {
	r := lintFiles(t, "", 0, filepath.Join("testdata", "input", "list.json"))
	want := map[string]int{"linux-web": 5, "nano": 19} // the item, the image
	for _, f := range r.Findings {
		if f.Rule != "SCH-5" {
			continue
		}
		if f.Line != want[f.Name] {
			t.Errorf("SCH-5 on %s at line %d, want %d", f.Name, f.Line, want[f.Name])
		}
		delete(want, f.Name)
	}
	if len(want) > 0 {
		t.Errorf("no SCH-5 for %v:\n%s", want, dump(r))
	}
}

// rule: SCH-1, IMG-2
// A selector that matches no node (SCH-1) does not hide an image that no
// node runs (IMG-2), nor an image that some node runs but the build the
// pod pins does not (IMG-2: the webhook refuses that pod for it).
func TestNoNodeStillChecksImages(t *testing.T) {
	r := lintFiles(t, "", 0, filepath.Join("testdata", "golden", "no-node-and-image.yaml"))
	got := map[string][]string{}
	for _, f := range r.Findings {
		got[f.Name] = append(got[f.Name], f.Rule)
	}
	if strings.Join(got["wrong-build-everywhere"], ",") != "SCH-1,IMG-2" {
		t.Errorf("wrong-build-everywhere: %v, want SCH-1 and IMG-2", got["wrong-build-everywhere"])
	}
	if strings.Join(got["selector-only"], ",") != "SCH-1,IMG-2" {
		t.Errorf("selector-only: %v, want SCH-1 and IMG-2 for the pinned build 10.0.14393", got["selector-only"])
	}
}

// rule: SCH-4, IMG-4
// A pod whose own selector pins Linux for a Windows image is told so even
// when its RuntimeClass conflict (SCH-4) keeps it off every node.
func TestPinnedOSChecksImages(t *testing.T) {
	r := lintFiles(t, "", 0, filepath.Join("testdata", "rules", "sch-4-bad.yaml"))
	var got []string
	for _, f := range r.Findings {
		if f.Name == "sch4" {
			got = append(got, f.Rule)
		}
	}
	if strings.Join(got, ",") != "SCH-4,SCH-1,IMG-4" {
		t.Errorf("sch4: %v, want SCH-4, SCH-1 and IMG-4", got)
	}
}

// rule: API-1
// A finding's field line comes from the document as it was loaded: lint
// does not read the file a second time, so a file changed in between (or
// stdin, which cannot be read twice) still gets the lines it was loaded
// with.
func TestFieldLinesFromLoadedDocument(t *testing.T) {
	const list = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: bad-os}
  spec:
    os:
      name: macos
    containers: [{name: app, image: nginx:1.27}]
`
	path := filepath.Join(t.TempDir(), "list.yaml")
	if err := os.WriteFile(path, []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	objs, errs := manifest.Load([]string{path}, manifest.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if err := os.WriteFile(path, []byte("# moved\n# down\n"+list), 0o644); err != nil {
		t.Fatal(err)
	}
	target, err := TargetFromCluster(v1alpha1.DefaultCluster())
	if err != nil {
		t.Fatal(err)
	}
	r := New(target).Lint(objs)
	var lines []int
	for _, f := range r.Findings {
		if f.Rule == "API-1" {
			lines = append(lines, f.Line)
		}
	}
	if len(lines) != 1 || lines[0] != 9 { // "name: macos" as loaded
		t.Errorf("API-1 at lines %v, want [9]:\n%s", lines, dump(r))
	}
}

// rule: WK-1
// A winkube annotation the node would refuse is reported at its own line,
// in the node's words, after the field path.
func TestAnnotationFinding(t *testing.T) {
	r := lintFiles(t, "", 0, filepath.Join("testdata", "rules", "wk-1-bad.yaml"))
	want := `spec.template.metadata.annotations[winkube.io/unknown-program]: annotation winkube.io/unknown-program="sometimes": want stand-in, idle or exit CODE`
	for _, f := range r.Findings {
		if f.Rule == "WK-1" {
			if f.Message != want || f.Line != 14 || f.Severity != rules.SeverityError {
				t.Errorf("WK-1 at line %d (%s): %q, want line 14: %q", f.Line, f.Severity, f.Message, want)
			}
			return
		}
	}
	t.Errorf("no WK-1:\n%s", dump(r))
}

// rule: KP-7
// A NodePort Service whose backends are not in the input: where they run
// is unknown, so lint says KP-7 was not checked (info), never a verdict.
func TestNodePortIssueNotChecked(t *testing.T) {
	r := lintFiles(t, "", 0, filepath.Join("testdata", "kp-7-service-alone.yaml"))
	if len(r.Findings) != 1 || r.Findings[0].Rule != "KP-7" || r.Findings[0].Case != "not-checked" || r.Findings[0].Severity != rules.SeverityInfo {
		t.Errorf("want one KP-7 not-checked info:\n%s", dump(r))
	}
}

// rule: GMSA-2, GMSA-3
// lint refuses what the windows-gmsa webhook refuses, in its words; the
// example is clean.
func TestGMSAFindings(t *testing.T) {
	for file, want := range map[string]string{
		"gmsa-2-bad.yaml": `spec.template.spec.securityContext.windowsOptions.gmsaCredentialSpecName: service account "default" is not authorized to ` + "`use`" + ` GMSA cred spec "gmsa-webapp01"`,
		"gmsa-3-bad.yaml": `spec.template.spec.securityContext.windowsOptions.gmsaCredentialSpec: the GMSA cred spec contents for pod "" does not match the contents of GMSA resource "gmsa-webapp01"`,
	} {
		r := lintFiles(t, "", 0, filepath.Join("testdata", "rules", file))
		found := false
		for _, f := range r.Findings {
			if strings.HasPrefix(f.Rule, "GMSA-") {
				found = found || f.Message == want && f.Severity == rules.SeverityError
			}
		}
		if !found {
			t.Errorf("%s: want %q:\n%s", file, want, dump(r))
		}
	}
	r := lintFiles(t, "", 0, filepath.Join("..", "..", "examples", "gmsa.yaml"))
	if len(r.Findings) != 0 || len(r.Errors) != 0 || len(r.Unchecked) != 0 {
		t.Errorf("examples/gmsa.yaml:\n%s (unchecked %v)", dump(r), r.Unchecked)
	}
}

// rule: GMSA-2
// Without RBAC objects in the input, `use` is not checked (info), never
// refused.
func TestGMSAUseNotChecked(t *testing.T) {
	r := lintFiles(t, "", 0, filepath.Join("testdata", "gmsa-no-rbac.yaml"))
	if len(r.Findings) != 1 || r.Findings[0].Rule != "GMSA-2" || r.Findings[0].Case != "not-checked" {
		t.Errorf("want one GMSA-2 not-checked:\n%s", dump(r))
	}
}
