package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/cmd"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut strings.Builder
	code := Run(context.Background(), cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, args)
	return code, out.String(), errOut.String()
}

func TestVersion(t *testing.T) {
	code, out, _ := run(t, "version")
	if code != 0 || !strings.Contains(out, "kubernetes v1.36.3") {
		t.Errorf("version: %d %q", code, out)
	}
}

func TestHelpListsCommandsNotInternals(t *testing.T) {
	code, out, _ := run(t, "--help")
	for _, c := range []string{"up", "down", "nodes", "lint", "describe", "version"} {
		if !strings.Contains(out, "\n  "+c+" ") {
			t.Errorf("help lacks %s:\n%s", c, out)
		}
	}
	// The hidden component command and upstream's global --version flag
	// stay out of sight; winkube's own --version is listed once.
	if code != 0 || strings.Contains(out, "component") || strings.Count(out, "--version") != 1 || !strings.Contains(out, "--version   print the winkube version") {
		t.Errorf("help shows internals (code %d):\n%s", code, out)
	}
}

// `winkube --version` prints what `winkube version` does (it printed help).
func TestVersionFlag(t *testing.T) {
	_, want, _ := run(t, "version")
	code, out, errOut := run(t, "--version")
	if code != 0 || out != want || errOut != "" {
		t.Errorf("--version: %d %q %q, want %q", code, out, errOut, want)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"up", "--no-such-flag"},
		{"describe", "pod"},
		{"describe", "node", "x"},
	} {
		code, _, errOut := run(t, args...)
		if code != 2 || !strings.HasPrefix(errOut, "winkube: ") {
			t.Errorf("%v: code %d, stderr %q", args, code, errOut)
		}
	}
}

func TestNodesNeedsKubeconfig(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	code, _, errOut := run(t, "nodes")
	if code != 2 || !strings.Contains(errOut, "--kubeconfig or $KUBECONFIG") {
		t.Errorf("nodes without --kubeconfig: %d %q", code, errOut)
	}
}

func TestUpRejectsBadConfigBeforeStarting(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("apiVersion: winkube.io/v1alpha1\nkind: Cluster\nnodePools:\n- name: w\n  os: windows\n  release: \"2012\"\n"), 0o644)
	code, _, errOut := run(t, "up", "--config", bad, "--data-dir", filepath.Join(dir, "data"))
	if code != 2 || !strings.Contains(errOut, bad) || !strings.Contains(errOut, "nodePools[0].release") {
		t.Errorf("up with a bad config: %d %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); !os.IsNotExist(err) {
		t.Error("a bad config must not create the data dir")
	}
}

func TestDownOfMissingDir(t *testing.T) {
	code, out, _ := run(t, "down", "--data-dir", filepath.Join(t.TempDir(), "none"))
	if code != 0 || !strings.Contains(out, "does not exist") {
		t.Errorf("down: %d %q", code, out)
	}
}
