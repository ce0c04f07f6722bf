package lint

import (
	"testing"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/lint/lintcorpus"
	"github.com/winkube/winkube/pkg/manifest"
)

func writeCorpus(tb testing.TB, dir string) {
	tb.Helper()
	if err := lintcorpus.Write(dir, lintcorpus.Files*lintcorpus.DocsPerFile); err != nil {
		tb.Fatal(err)
	}
}

func defaultTarget(b *testing.B) *Target {
	t, err := TargetFromCluster(v1alpha1.DefaultCluster())
	if err != nil {
		b.Fatal(err)
	}
	return t
}

// BenchmarkLint measures linting a 10,000-object corpus against the default
// cluster, with the objects already loaded.
func BenchmarkLint(b *testing.B) {
	dir := b.TempDir()
	writeCorpus(b, dir)
	objs, errs := manifest.Load([]string{dir}, manifest.Options{})
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	linter := New(defaultTarget(b))
	b.ResetTimer()
	for b.Loop() {
		if r := linter.Lint(objs); len(r.Errors) > 0 {
			b.Fatal(r.Errors)
		}
	}
	b.ReportMetric(float64(len(objs)*b.N)/b.Elapsed().Seconds(), "objects/s")
}

// BenchmarkLoadAndLint is the whole of `winkube lint DIR` without the
// report: a fresh Linter (cold caches), reading and decoding the YAML
// files, then linting.
func BenchmarkLoadAndLint(b *testing.B) {
	dir := b.TempDir()
	writeCorpus(b, dir)
	n := 0
	b.ResetTimer()
	for b.Loop() {
		linter := New(defaultTarget(b))
		objs, errs := manifest.Load([]string{dir}, manifest.Options{})
		if len(errs) > 0 {
			b.Fatal(errs)
		}
		linter.Lint(objs)
		n += len(objs)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "objects/s")
}
