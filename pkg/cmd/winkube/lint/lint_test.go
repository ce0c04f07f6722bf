package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/cmd"
)

var update = flag.Bool("update", false, "rewrite testdata/golden")

// runLint runs `winkube lint args...` in process and returns stdout,
// stderr and the exit code.
func runLint(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	c := NewCommand(cmd.IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut})
	c.SetArgs(args)
	c.SetOut(&out)
	c.SetErr(&errOut)
	err := c.Execute()
	code := 0
	var exit *cmd.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.Code
		if exit.Err != nil {
			errOut.WriteString(exit.Err.Error() + "\n")
		}
	case err != nil:
		t.Fatalf("lint %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if string(want) != got {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}

func TestFormats(t *testing.T) {
	for _, format := range []string{"text", "json", "sarif", "junit"} {
		t.Run(format, func(t *testing.T) {
			out, _, code := runLint(t, "", "-o", format, "testdata/fails.yaml")
			if code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			golden(t, "fails."+format, out)
		})
	}
}

func TestExitCodes(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want int
	}{
		{"clean", []string{"testdata/clean.yaml"}, 0},
		{"errors", []string{"testdata/fails.yaml"}, 1},
		{"warnings pass by default", []string{"testdata/warns.yaml"}, 0},
		{"warnings fail with --fail-on warning", []string{"--fail-on", "warning", "testdata/warns.yaml"}, 1},
		{"nothing fails with --fail-on none", []string{"--fail-on", "none", "testdata/fails.yaml"}, 0},
		{"broken input", []string{"testdata/broken.yaml", "testdata/clean.yaml"}, 2},
		{"missing file", []string{"testdata/nope.yaml"}, 2},
		{"no input", nil, 2},
		{"unknown format", []string{"-o", "xml", "testdata/clean.yaml"}, 2},
		{"unknown severity", []string{"--fail-on", "fatal", "testdata/clean.yaml"}, 2},
		{"dry run without fix", []string{"--dry-run", "testdata/clean.yaml"}, 2},
		{"more outputs than formats", []string{"--output-file", "a", "--output-file", "b", "testdata/clean.yaml"}, 2},
		{"unknown context", []string{"--kubeconfig", "testdata/kubeconfig.yaml", "--context", "nope", "testdata/clean.yaml"}, 2},
		{"bad version", []string{"--kubernetes-version", "banana", "testdata/clean.yaml"}, 2},
		{"two targets", []string{"--kubeconfig", "k", "--cluster-config", "c", "testdata/clean.yaml"}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runLint(t, "", tc.args...)
			if code != tc.want {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tc.want, errOut)
			}
		})
	}
}

// TestInputErrorStillReports: inputs that load are reported even when
// another input is broken.
func TestInputErrorStillReports(t *testing.T) {
	out, errOut, code := runLint(t, "", "-o", "json", "testdata/broken.yaml", "testdata/fails.yaml")
	if code != 2 {
		t.Fatalf("exit code %d, want 2", code)
	}
	if !strings.Contains(errOut, "testdata/broken.yaml") {
		t.Errorf("stderr does not name the broken file:\n%s", errOut)
	}
	var r struct{ Findings []struct{ Rule string } }
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Findings) == 0 {
		t.Errorf("no findings for the good input (%v):\n%s", err, out)
	}
}

// An input error in one file and error findings in another: the findings
// are printed and counted, the broken file is listed at its line, the
// summary counts both, and the exit status is 2 (not everything was
// checked) rather than 1.
func TestInputErrorAndFindings(t *testing.T) {
	out, errOut, code := runLint(t, "", "testdata/broken.yaml", "testdata/fails.yaml")
	if code != 2 {
		t.Errorf("exit code %d, want 2", code)
	}
	if errOut != "" {
		t.Errorf("the text report on stdout lists the input error; stderr should not repeat it:\n%s", errOut)
	}
	golden(t, "broken-and-fails.text", out)
	sarif, _, _ := runLint(t, "", "-o", "sarif", "testdata/broken.yaml", "testdata/fails.yaml")
	golden(t, "broken-and-fails.sarif", sarif)
}

func TestStdin(t *testing.T) {
	data, err := os.ReadFile("testdata/fails.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, _, code := runLint(t, string(data), "-")
	if code != 1 || !strings.Contains(out, "<stdin>") {
		t.Errorf("exit code %d, output:\n%s", code, out)
	}
}

// TestOutputs pairs -o FORMAT and --output-file by position.
func TestOutputs(t *testing.T) {
	dir := t.TempDir()
	sarif, junit := filepath.Join(dir, "lint.sarif"), filepath.Join(dir, "lint.xml")
	out, errOut, code := runLint(t, "", "-o", "text", "-o", "sarif", "--output", "junit",
		"--output-file", "-", "--output-file", sarif, "--output-file", junit, "testdata/fails.yaml")
	if code != 1 || errOut != "" {
		t.Errorf("exit code %d, want 1; stderr %q", code, errOut)
	}
	if !strings.Contains(out, "objects checked") {
		t.Errorf("text report missing from stdout:\n%s", out)
	}
	for _, f := range []string{sarif, junit} {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}

// The old spellings (--format FORMAT, -o FILE) work for one more release,
// each with a warning naming the new one.
func TestOldOutputSpellings(t *testing.T) {
	sarif := filepath.Join(t.TempDir(), "lint.sarif")
	out, errOut, code := runLint(t, "", "--format", "text", "--format", "sarif", "-o", "-", "-o", sarif, "testdata/fails.yaml")
	if code != 1 || !strings.Contains(out, "objects checked") {
		t.Errorf("exit code %d, stdout:\n%s", code, out)
	}
	if fi, err := os.Stat(sarif); err != nil || fi.Size() == 0 {
		t.Errorf("%s not written: %v", sarif, err)
	}
	for _, want := range []string{"--format is deprecated", "use -o/--output FORMAT", "write files with --output-file -"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// TestSARIFShape checks what GitHub code scanning requires of a SARIF log.
func TestSARIFShape(t *testing.T) {
	out, _, _ := runLint(t, "", "-o", "sarif", "testdata/fails.yaml")
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string
					Rules []struct {
						ID               string `json:"id"`
						ShortDescription struct{ Text string }
						HelpURI          string `json:"helpUri"`
					}
				}
			}
			Results []struct {
				RuleID    string `json:"ruleId"`
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q, %d runs", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	rules := map[string]bool{}
	for _, r := range run.Tool.Driver.Rules {
		if r.ID == "" || r.ShortDescription.Text == "" || !strings.HasPrefix(r.HelpURI, "https://") {
			t.Errorf("incomplete rule %+v", r)
		}
		rules[r.ID] = true
	}
	if len(run.Results) == 0 {
		t.Fatal("no results")
	}
	for _, r := range run.Results {
		if !rules[r.RuleID] {
			t.Errorf("result rule %s not in tool.driver.rules", r.RuleID)
		}
		if r.Level != "error" && r.Level != "warning" && r.Level != "note" {
			t.Errorf("level %q", r.Level)
		}
		if r.Message.Text == "" || len(r.Locations) != 1 {
			t.Errorf("result %+v", r)
			continue
		}
		loc := r.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI != "testdata/fails.yaml" || loc.Region.StartLine < 1 {
			t.Errorf("location %+v", loc)
		}
	}
}

// TestIgnoreAnnotation: winkube.io/ignore silences the named rule only.
func TestIgnoreAnnotation(t *testing.T) {
	out, _, _ := runLint(t, "", "testdata/fails.yaml")
	if strings.Contains(out, "default/quiet") {
		t.Errorf("SCH-5 on default/quiet was not silenced:\n%s", out)
	}
	if !strings.Contains(out, "1 ignored (winkube.io/ignore)") {
		t.Errorf("the summary does not count the silenced finding:\n%s", out)
	}
}

func TestFixDryRun(t *testing.T) {
	out, _, code := runLint(t, "", "--fix", "--dry-run", "testdata/fails.yaml")
	if code != 1 {
		t.Errorf("exit code %d, want 1 (a dry run changes nothing)", code)
	}
	golden(t, "fails.fix-dry-run", out)
}

// TestFix rewrites a copy and lints it again: the placement findings the
// edits address are gone.
func TestFix(t *testing.T) {
	data, err := os.ReadFile("testdata/fails.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "fails.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, _ := runLint(t, "", "--fix", file)
	if !strings.Contains(errOut, "fixed") {
		t.Errorf("no fix summary on stderr:\n%s", errOut)
	}
	for _, rule := range []string{"SCH-5", "IMG-2", "IMG-4"} {
		if strings.Contains(out, " "+rule+" ") {
			t.Errorf("%s still reported after --fix:\n%s", rule, out)
		}
	}
	fixed, _ := os.ReadFile(file)
	if !strings.Contains(string(fixed), "# A Windows Deployment with no placement") {
		t.Errorf("--fix lost the comments:\n%s", fixed)
	}
}

// TestListItems: findings inside a kind: List point at each item's own
// lines, and --fix places the items in place.
func TestListItems(t *testing.T) {
	out, _, code := runLint(t, "", "testdata/list.yaml")
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	golden(t, "list.text", out)

	data, err := os.ReadFile("testdata/list.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "list.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runLint(t, "", "--fix", file)
	if code != 0 || !strings.Contains(errOut, "fixed 1 document") {
		t.Errorf("--fix: exit code %d, stderr %q, report:\n%s", code, errOut, out)
	}
	fixed, _ := os.ReadFile(file)
	if !strings.Contains(string(fixed), "# kubectl get -o yaml output") || strings.Count(string(fixed), "node.kubernetes.io/windows-build") != 2 {
		t.Errorf("--fix did not place both items:\n%s", fixed)
	}
}

// TestOlderCluster: with --kubernetes-version 1.22 spec.os is dropped (API-8).
func TestOlderCluster(t *testing.T) {
	out, _, _ := runLint(t, "", "--kubernetes-version", "1.22", "testdata/clean.yaml")
	if !strings.Contains(out, "API-8") {
		t.Errorf("API-8 not reported for 1.22:\n%s", out)
	}
}
