package facts_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/facts"
)

// benchStore is a facts file of n images.
func benchStore(b *testing.B, n int) *facts.Store {
	b.Helper()
	s, err := facts.Open(facts.ImportedPath(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	var fs []facts.Fact
	for i := 0; i < n; i++ {
		fs = append(fs, facts.Fact{Ref: facts.Key(fmt.Sprintf("registry.example.com/team/app%d:1.0", i)), Index: true, Platforms: platforms(linux, win2022)})
	}
	if err := s.Put(fs...); err != nil {
		b.Fatal(err)
	}
	return s
}

// What a pull's look-up costs with imported facts in front of the
// catalog: a hit, and a miss that goes on to the catalog (each checks
// the file's stamp).
func BenchmarkResolve(b *testing.B) {
	r := facts.Resolver{Facts: benchStore(b, 1000), Next: imageinfo.CatalogResolver{}}
	ctx := context.Background()
	for _, c := range []struct{ name, ref string }{
		{"imported", "registry.example.com/team/app500:1.0"},
		{"catalog", "mcr.microsoft.com/windows/servercore:ltsc2022"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if a := r.Resolve(ctx, imageinfo.Request{Ref: c.ref}); !a.Image.Known {
					b.Fatal("unknown")
				}
			}
		})
	}
	b.Run("catalog-alone", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			imageinfo.CatalogResolver{}.Resolve(ctx, imageinfo.Request{Ref: "mcr.microsoft.com/windows/servercore:ltsc2022"})
		}
	})
}

// Importing one more image into a file of 1000: the whole file is
// written, atomically.
func BenchmarkPut(b *testing.B) {
	s := benchStore(b, 1000)
	f := facts.Fact{Ref: facts.Key("registry.example.com/team/new:1.0"), Platforms: platforms(win2022)}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Put(f); err != nil {
			b.Fatal(err)
		}
	}
}
