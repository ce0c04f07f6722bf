package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The commands about named clusters, without a running cluster: what they
// say and their exit codes.
func TestClusterCommandsWithoutClusters(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", filepath.Join(home, "kubeconfig"))
	if code, out, _ := run(t, "list"); code != 0 || !strings.Contains(out, "No clusters") {
		t.Errorf("list: %d %q", code, out)
	}
	if code, out, _ := run(t, "list", "-o", "json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("list -o json: %d %q", code, out)
	}
	for _, args := range [][]string{{"status", "nosuch"}, {"stop", "nosuch"}, {"kubeconfig", "nosuch"}} {
		if code, _, errOut := run(t, args...); code != 2 || !strings.Contains(errOut, "no cluster named nosuch") {
			t.Errorf("%v: %d %q", args, code, errOut)
		}
	}
	// A name and a data dir together, and bad names, are usage errors.
	for _, args := range [][]string{
		{"down", "t1", "--data-dir", home},
		{"status", "Bad_Name"},
		{"up", "--name", "default"},
		{"up", "--name", "-x-"},
	} {
		if code, _, errOut := run(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%q)", args, code, errOut)
		}
	}
	if code, out, _ := run(t, "down", "t1"); code != 0 || !strings.Contains(out, "Nothing to delete") {
		t.Errorf("down of an unknown name: %d %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(home, "kubeconfig")); !os.IsNotExist(err) {
		t.Error("a command without a cluster wrote the kubeconfig")
	}
}
