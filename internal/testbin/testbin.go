// Package testbin builds the winkube binary for test packages that run it
// as a user does (test/e2e, test/workloads): once per package, in TestMain.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Build compiles ./cmd/winkube of the module at repoRoot into a new
// directory under the temp dir (named prefix*), with the compiler's
// output on stderr. It returns the binary's path and a function that
// removes the directory.
func Build(repoRoot, prefix string) (string, func(), error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	remove := func() { os.RemoveAll(dir) }
	bin := filepath.Join(dir, "winkube")
	build := exec.Command("go", "build", "-o", bin, "./cmd/winkube")
	build.Dir = repoRoot
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		remove()
		return "", nil, fmt.Errorf("building winkube: %w", err)
	}
	return bin, remove, nil
}
