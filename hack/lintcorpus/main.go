// Command lintcorpus writes the lint benchmark corpus (10,000 Kubernetes
// objects in 100 files) into a directory, for hack/bench-lint.sh.
//
//	go run ./hack/lintcorpus -o DIR
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/winkube/winkube/pkg/lint/lintcorpus"
)

func main() {
	dir := flag.String("o", "", "directory to write the corpus into (created if missing)")
	n := flag.Int("n", lintcorpus.Files*lintcorpus.DocsPerFile, "number of documents")
	flag.Parse()
	if err := run(*dir, *n); err != nil {
		fmt.Fprintln(os.Stderr, "lintcorpus:", err)
		os.Exit(1)
	}
}

func run(dir string, n int) error {
	if dir == "" {
		return fmt.Errorf("-o is required: the directory to write the corpus into")
	}
	if n <= 0 {
		return fmt.Errorf("-n must be positive, got %d", n)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create -o directory: %w", err)
	}
	return lintcorpus.Write(dir, n)
}
