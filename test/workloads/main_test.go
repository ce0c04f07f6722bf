// Package workloads holds the acceptance corpus of real workloads
// (testdata/README.md): each row of its table is a test that deploys the
// row's manifests, unchanged, onto a cluster started with the built
// winkube binary, and checks what the row says a real cluster shows.
package workloads

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

// repoRoot is the repository's top directory; testdata is this package's.
var repoRoot, testdata string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	_, file, _, _ := runtime.Caller(0)
	testdata = filepath.Join(filepath.Dir(file), "testdata")
	repoRoot = filepath.Join(filepath.Dir(file), "..", "..")
	bin, remove, err := testbin.Build(repoRoot, "winkube-workloads-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer remove()
	winkube = bin
	return m.Run()
}
