package lint

import (
	"os"
	"strings"
	"testing"
)

// Findings read from stdin carry the line of their field, as the same
// file's findings do, not the first line of their document.
func TestStdinFindingsHaveFieldLines(t *testing.T) {
	data, err := os.ReadFile("testdata/fails.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fromFile, _, _ := runLint(t, "", "testdata/fails.yaml")
	fromStdin, _, _ := runLint(t, string(data), "-")
	want := strings.ReplaceAll(fromFile, "testdata/fails.yaml:", "<stdin>:")
	if fromStdin != want {
		t.Errorf("stdin report:\n%s\nwant the file's lines:\n%s", fromStdin, want)
	}
}

// --fix says which inputs it cannot rewrite instead of silently doing
// nothing for them.
func TestFixSaysWhatItCannotRewrite(t *testing.T) {
	_, errOut, _ := runLint(t, "", "--fix", "--dry-run", "../../../manifest/testdata/repo/kustomize/overlay")
	if !strings.Contains(errOut, "overlay is a Kustomize directory: its findings are reported, not fixed") {
		t.Errorf("stderr:\n%s", errOut)
	}
}
