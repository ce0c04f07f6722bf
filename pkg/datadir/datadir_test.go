package datadir

import (
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	t.Setenv("HOME", "/home/someone")
	if d, err := Resolve(""); err != nil || d != "/home/someone/.winkube/default" {
		t.Errorf("Resolve(\"\") = %q, %v", d, err)
	}
	if d, err := Resolve("rel"); err != nil || !filepath.IsAbs(d) || filepath.Base(d) != "rel" {
		t.Errorf("Resolve(rel) = %q, %v", d, err)
	}
	if Kubeconfig("/d") != "/d/kubeconfig" {
		t.Error("Kubeconfig path")
	}
}
