// Package e2e runs the built winkube binary the way a user does.
package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/winkube/winkube/internal/testbin"
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
	bin, remove, err := testbin.Build(repoRoot, "winkube-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer remove()
	winkube = bin
	return m.Run()
}
