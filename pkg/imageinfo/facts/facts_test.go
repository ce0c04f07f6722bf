package facts_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/facts"
	rt "github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
)

// Facts put in a store are there after it is opened again, under the
// normalised reference, and the resolver answers them before the catalog.
// rule: IMG-3
func TestStoreKeepsFactsAndResolverAnswersThem(t *testing.T) {
	path := facts.ImportedPath(t.TempDir())
	s, err := facts.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	// The catalog says every tag of redis is Linux; the user knows better
	// about the one they built.
	f := facts.Fact{Ref: facts.Key("redis:custom-nanoserver"), Platforms: platforms(win2022), Index: true, From: "test"}
	if err := s.Put(f); err != nil {
		t.Fatal(err)
	}
	again, err := facts.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := again.Get("docker.io/library/redis:custom-nanoserver")
	if !ok || got.Ref != "docker.io/library/redis:custom-nanoserver" {
		t.Fatalf("reopened store: %+v %v", got, ok)
	}
	r := facts.Resolver{Facts: again, Next: imageinfo.CatalogResolver{}}
	a := r.Resolve(context.Background(), imageinfo.Request{Ref: "redis:custom-nanoserver"})
	if a.Source != imageinfo.SourceImported || !a.Image.Known || !a.Image.HasOS("windows") || a.Image.HasOS("linux") {
		t.Errorf("answer %s %+v", a.Source, a.Image)
	}
	if b := a.Image.WindowsBuilds(); len(b) != 1 || b[0].String() != rt.Version2022 {
		t.Errorf("builds %v", b)
	}
	if a := r.Resolve(context.Background(), imageinfo.Request{Ref: "redis:7"}); a.Source != imageinfo.SourceCatalog {
		t.Errorf("an image not imported: from %s, want the catalog", a.Source)
	}
}

// A store whose file cannot be replaced keeps what it had: nothing of a
// failed Put is half there, in memory or on disk.
func TestStorePutIsAllOrNothing(t *testing.T) {
	path := facts.ImportedPath(t.TempDir())
	s, err := facts.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(facts.Fact{Ref: facts.Key("a:1"), Platforms: platforms(linux)}); err != nil {
		t.Fatal(err)
	}
	// A non-empty directory where the file was: the rename fails, even
	// for root.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(path, "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	err = s.Put(facts.Fact{Ref: facts.Key("b:1"), Platforms: platforms(linux)}, facts.Fact{Ref: facts.Key("a:1"), Platforms: platforms(win2019)})
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Put over a directory: %v, want an error naming %s", err, path)
	}
	if _, ok := s.Get("b:1"); ok {
		t.Error("the failed Put's new fact is in memory")
	}
	if a, _ := s.Get("a:1"); a.Platforms[0].OS != "linux" {
		t.Errorf("the failed Put replaced a:1 in memory: %+v", a)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A facts file that is not JSON is an error naming it, not an empty store
// that the next write would overwrite.
func TestOpenRefusesACorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "imported.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := facts.Open(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Open: %v, want an error naming %s", err, path)
	}
}

// A store opened before an import sees the imported facts: a running
// cluster's node agents answer for images imported after `up`.
func TestStoreSeesLaterImports(t *testing.T) {
	path := facts.ImportedPath(t.TempDir())
	running, err := facts.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := running.Get("agent:1"); ok {
		t.Fatal("fact before any import")
	}
	importer, err := facts.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := importer.Put(facts.Fact{Ref: facts.Key("agent:1"), Platforms: platforms(win2022)}); err != nil {
		t.Fatal(err)
	}
	if f, ok := running.Get("agent:1"); !ok || f.Platforms[0].OSVersion != rt.Version2022 {
		t.Errorf("the running store after the import: %+v %v", f, ok)
	}
	// And a Put of the running store keeps the importer's fact.
	if err := running.Put(facts.Fact{Ref: facts.Key("web:2"), Platforms: platforms(linux)}); err != nil {
		t.Fatal(err)
	}
	again, _ := facts.Open(path)
	if n := len(again.All()); n != 2 {
		t.Errorf("file holds %d facts, want 2", n)
	}
}
