package e2e

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// lintData is test/e2e/testdata/lint.
func lintData(name string) string {
	return filepath.Join("test", "e2e", "testdata", "lint", name)
}

// lint runs `winkube lint args...` from the repository root.
func lint(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	c := exec.Command(winkube, append([]string{"lint"}, args...)...)
	c.Dir = repoRoot
	var out, errOut strings.Builder
	c.Stdout, c.Stderr = &out, &errOut
	err := c.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("winkube lint %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

// TestLintExamples: examples/ is clean. The example that fails on purpose
// carries winkube.io/ignore, which the summary counts; without it, the
// linter reports the failure with its rule.
func TestLintExamples(t *testing.T) {
	out, errOut, code := lint(t, "examples/")
	if code != 0 || strings.Contains(out, ": error ") || !strings.Contains(out, "1 ignored") {
		t.Errorf("winkube lint examples/: exit %d, want 0 with 1 ignored\n%s%s", code, out, errOut)
	}
	// rule: IMG-2
	out, errOut, code = lint(t, unmarkedFailingExample(t))
	if code != 1 || !strings.Contains(out, "IMG-2") {
		t.Errorf("the failing example without its annotation: exit %d, want 1 with IMG-2\n%s%s", code, out, errOut)
	}
}

// unmarkedFailingExample writes the failing example without the
// winkube.io/ignore line that marks its failure as deliberate.
func unmarkedFailingExample(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "examples", "iis-2022-on-2019-fails.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.Contains(line, "winkube.io/ignore:") {
			kept = append(kept, line)
		}
	}
	file := filepath.Join(t.TempDir(), "iis-2022-on-2019.yaml")
	if err := os.WriteFile(file, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestLintFormats(t *testing.T) {
	parse := map[string]func([]byte) error{
		"text": func(b []byte) error {
			if !strings.Contains(string(b), "objects checked") {
				return errors.New("no summary line")
			}
			return nil
		},
		"json": func(b []byte) error {
			var r struct {
				Findings []struct{ Rule, Severity, File, Message, Fix string }
				Summary  map[string]int
			}
			if err := json.Unmarshal(b, &r); err != nil {
				return err
			}
			if len(r.Findings) == 0 || r.Findings[0].Rule == "" || r.Findings[0].Fix == "" {
				return errors.New("findings lack rule or fix")
			}
			return nil
		},
		"sarif": func(b []byte) error {
			var r struct {
				Version string
				Runs    []struct{ Results []struct{ RuleID string } }
			}
			if err := json.Unmarshal(b, &r); err != nil {
				return err
			}
			if r.Version != "2.1.0" || len(r.Runs) != 1 || len(r.Runs[0].Results) == 0 {
				return errors.New("not a SARIF 2.1.0 log with results")
			}
			return nil
		},
		"junit": func(b []byte) error {
			var r struct {
				XMLName  xml.Name `xml:"testsuites"`
				Failures int      `xml:"failures,attr"`
			}
			if err := xml.Unmarshal(b, &r); err != nil {
				return err
			}
			if r.Failures == 0 {
				return errors.New("no failures")
			}
			return nil
		},
	}
	for format, check := range parse {
		t.Run(format, func(t *testing.T) {
			out, errOut, code := lint(t, "-o", format, lintData("fails.yaml"))
			if code != 1 {
				t.Errorf("exit %d, want 1\n%s", code, errOut)
			}
			if err := check([]byte(out)); err != nil {
				t.Errorf("%s output: %v\n%s", format, err, out)
			}
		})
	}
	// Several reports at once, -o FORMAT paired with --output-file by position.
	dir := t.TempDir()
	sarif := filepath.Join(dir, "lint.sarif")
	out, _, _ := lint(t, "-o", "text", "-o", "sarif", "--output-file", "-", "--output-file", sarif, lintData("fails.yaml"))
	if err := parse["text"]([]byte(out)); err != nil {
		t.Errorf("text on stdout: %v", err)
	}
	if data, err := os.ReadFile(sarif); err != nil || parse["sarif"](data) != nil {
		t.Errorf("sarif file: %v", err)
	}
}

func TestLintExitCodes(t *testing.T) {
	cases := []struct {
		args []string
		want int
	}{
		{[]string{lintData("clean.yaml")}, 0},
		{[]string{lintData("fails.yaml")}, 1},
		{[]string{"--fail-on", "none", lintData("fails.yaml")}, 0},
		{[]string{lintData("broken.yaml"), lintData("clean.yaml")}, 2},
		{[]string{"-o", "yaml", lintData("clean.yaml")}, 2},
		{[]string{"--no-such-flag", lintData("clean.yaml")}, 2},
	}
	for _, tc := range cases {
		out, errOut, code := lint(t, tc.args...)
		if code != tc.want {
			t.Errorf("winkube lint %v: exit %d, want %d\n%s%s", tc.args, code, tc.want, out, errOut)
		}
	}
	// Input errors still report what loaded; the text report lists both.
	out, errOut, _ := lint(t, lintData("broken.yaml"), lintData("fails.yaml"))
	if !strings.Contains(out, "broken.yaml:6: input error") || !strings.Contains(out, "fails.yaml") {
		t.Errorf("broken input hid the others:\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}
}

func TestLintFixDryRun(t *testing.T) {
	before, err := os.ReadFile(filepath.Join(repoRoot, lintData("fails.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := lint(t, "--fix", "--dry-run", lintData("fails.yaml"))
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, errOut)
	}
	for _, want := range []string{"--- a/" + lintData("fails.yaml"), "+      nodeSelector:", "+        kubernetes.io/os: windows", "+      - key: os"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff lacks %q:\n%s", want, out)
		}
	}
	after, _ := os.ReadFile(filepath.Join(repoRoot, lintData("fails.yaml")))
	if string(before) != string(after) {
		t.Error("--dry-run changed the file")
	}
}

func TestLintHelmChart(t *testing.T) {
	out, _, code := lint(t, lintData("chart"))
	if code != 1 || !strings.Contains(out, "chart/templates/deployment.yaml") || !strings.Contains(out, "SCH-5") {
		t.Errorf("chart as shipped: exit %d\n%s", code, out)
	}
	out, errOut, code := lint(t, "--set", "placeOnWindows=true", lintData("chart"))
	if code != 0 {
		t.Errorf("chart with placeOnWindows=true: exit %d\n%s%s", code, out, errOut)
	}
}

func TestLintKustomize(t *testing.T) {
	out, _, code := lint(t, lintData("kustomize/base"))
	if code != 1 || !strings.Contains(out, "SCH-5") {
		t.Errorf("base without placement: exit %d\n%s", code, out)
	}
	out, errOut, code := lint(t, lintData("kustomize/overlay"))
	if code != 0 {
		t.Errorf("overlay that places on 2022 nodes: exit %d\n%s%s", code, out, errOut)
	}
}

// TestLintKubeconfig lints against a live cluster started by winkube up:
// the nodes (with their windows-build labels and taints) come from the API.
func TestLintKubeconfig(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a whole cluster")
	}
	dir := t.TempDir()
	up := startUp(t, "--data-dir", dir, "--port", "0")
	defer up.stop(t, syscall.SIGINT)
	kubeconfig := filepath.Join(dir, "kubeconfig")
	out, errOut, code := lint(t, "--kubeconfig", kubeconfig, unmarkedFailingExample(t))
	if code != 1 || !strings.Contains(out, "IMG-2") {
		t.Errorf("live cluster, failing example: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = lint(t, "--kubeconfig", kubeconfig, lintData("clean.yaml"))
	if code != 0 {
		t.Errorf("live cluster, clean manifest: exit %d\n%s%s", code, out, errOut)
	}
	// A RuntimeClass the live cluster lacks is an admission error there.
	out, _, code = lint(t, "--kubeconfig", kubeconfig, "-o", "json", lintData("missing-runtimeclass.yaml"))
	if code != 1 || !strings.Contains(out, `RuntimeClass \"windows-2025\" not found`) {
		t.Errorf("missing RuntimeClass on the live cluster: exit %d\n%s", code, out)
	}
	noCredentialWritten(t, kubeconfig)
}
