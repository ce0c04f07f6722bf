package agreement

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/lint"
	"github.com/winkube/winkube/pkg/lint/load"
	"github.com/winkube/winkube/pkg/lint/report"
)

// TestREADMELintExamples keeps the README's `winkube lint` transcripts
// what lint prints: the clean examples/ summary and the failing IIS
// example without its annotation (line number, rule ID, message, fix,
// summary, in that order).
func TestREADMELintExamples(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	target := cluster(t, kubeversion.DefaultMinor)

	objs, _ := load.Load([]string{filepath.Join(repoRoot, "examples")}, load.Options{})
	want := transcript(t, lint.New(target).Lint(objs), "", "")
	if !strings.Contains(readme, "$ winkube lint examples/\n"+want) {
		t.Errorf("README.md's `winkube lint examples/` transcript differs; lint prints:\n%s", want)
	}

	src, err := os.ReadFile(filepath.Join(repoRoot, "examples", "iis-2022-on-2019-fails.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(src), "\n") {
		if !strings.Contains(line, "winkube.io/ignore:") { // the README's sed
			kept = append(kept, line)
		}
	}
	file := filepath.Join(t.TempDir(), "iis.yaml")
	if err := os.WriteFile(file, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	objs, _ = load.Load([]string{file}, load.Options{})
	want = transcript(t, lint.New(target).Lint(objs), file, "/tmp/iis.yaml")
	prompt := "winkube lint /tmp/iis.yaml\n"
	if !strings.Contains(readme, prompt+want) {
		t.Errorf("README.md's IIS transcript differs; lint prints:\n%s", want)
	}
}

// transcript is lint's text output with the file path as the README
// shows it.
func transcript(t *testing.T, r *lint.Result, path, shown string) string {
	t.Helper()
	var b strings.Builder
	if err := report.Text(&b, r); err != nil {
		t.Fatal(err)
	}
	if path == "" {
		return b.String()
	}
	return strings.ReplaceAll(b.String(), path, shown)
}
