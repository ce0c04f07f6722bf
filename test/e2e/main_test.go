// Package e2e runs the built winkube binary the way a user does.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// winkube is the path of the binary built once for the whole package.
var winkube string

// repoRoot is the repository's top directory (examples/ lives there).
var repoRoot string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	_, file, _, _ := runtime.Caller(0)
	repoRoot = filepath.Join(filepath.Dir(file), "..", "..")
	dir, err := os.MkdirTemp("", "winkube-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	winkube = filepath.Join(dir, "winkube")
	build := exec.Command("go", "build", "-o", winkube, "./cmd/winkube")
	build.Dir = repoRoot
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building winkube:", err)
		return 1
	}
	return m.Run()
}
