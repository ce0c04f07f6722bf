package registry_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/facts"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	rt "github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
)

// rule: IMG-3 — a public answer is kept in the data dir by tag and by
// digest, with the time; a resolver started later, with the registry
// gone, answers from it (Source cache) instead of the catalog's guess.
func TestDiskKeepsAnswersForOffline(t *testing.T) {
	dir := t.TempDir()
	srv := rt.Start(t)
	digest := srv.PushIndex(t, "team/web:1.0", rt.Linux("amd64"), rt.Windows(rt.Version2022))
	ref := srv.Ref("team/web:1.0")
	open := func() *facts.Store {
		s, err := facts.Open(facts.CachePath(dir))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	online := newResolver(t, registry.Options{Disk: open(), Now: func() time.Time { return now }})
	first := resolve(online, ref)
	if first.Source != imageinfo.SourceRegistry {
		t.Fatalf("online: from %s (%v)", first.Source, first.Err)
	}
	kept, ok := open().Get(ref)
	if !ok || kept.Digest != digest || !kept.Time.Equal(now) || kept.From != srv.Host || !kept.Index {
		t.Fatalf("kept %+v %v", kept, ok)
	}
	if _, ok := open().Get(srv.Ref("team/web@" + digest)); !ok {
		t.Error("the answer is not kept under its digest")
	}

	srv.Close()
	offline := newResolver(t, registry.Options{Disk: open()})
	for _, r := range []string{ref, srv.Ref("team/web@" + digest)} {
		a := resolve(offline, r)
		if a.Source != imageinfo.SourceCache || a.Err != nil || !reflect.DeepEqual(a.Image.Platforms, first.Image.Platforms) || !a.Image.Index {
			t.Errorf("%s offline: from %s, err %v, %+v; want the kept answer", r, a.Source, a.Err, a.Image)
		}
	}
}

// A registry that answers "not found" is believed over what it said
// before: the tag is gone, and the pull fails.
func TestDiskDoesNotOverruleNotFound(t *testing.T) {
	dir := t.TempDir()
	srv := rt.Start(t)
	ref := srv.Ref("team/gone:1.0")
	disk, err := facts.Open(facts.CachePath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := disk.Put(facts.Fact{Ref: facts.Key(ref), Index: true, Platforms: []facts.Platform{{OS: "linux", Architecture: "amd64"}}}); err != nil {
		t.Fatal(err)
	}
	a := resolve(newResolver(t, registry.Options{Disk: disk}), ref)
	if a.Source == imageinfo.SourceCache || registry.Missing(a.Err) != imageinfo.ErrTagNotFound {
		t.Errorf("from %s, err %v; want the registry's not found", a.Source, a.Err)
	}
}
