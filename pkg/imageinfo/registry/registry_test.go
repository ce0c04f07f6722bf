package registry_test

import (
	"context"
	"encoding/base64"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	rt "github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
	"github.com/winkube/winkube/pkg/windows"
)

func newResolver(t testing.TB, opts registry.Options) *registry.Resolver {
	t.Helper()
	r, err := registry.New(opts)
	if err != nil {
		t.Fatalf("registry.New: %v", err)
	}
	return r
}

func resolve(r *registry.Resolver, ref string, secrets ...[]byte) imageinfo.Answer {
	return r.Resolve(context.Background(), imageinfo.Request{Ref: ref, PullSecrets: secrets})
}

// rule: IMG-3 — an image's OS and build come from its index entries'
// platform (os, architecture, os.version, os.features), or from a single
// image's config.
func TestResolveReadsPlatforms(t *testing.T) {
	srv := rt.Start(t)
	srv.PushFixtures(t)
	r := newResolver(t, registry.Options{})
	win := func(v string, f ...string) imageinfo.Platform {
		return imageinfo.Platform{OS: "windows", Architecture: "amd64", OSVersion: v, OSFeatures: f}
	}
	linux := func(arch string) imageinfo.Platform { return imageinfo.Platform{OS: "linux", Architecture: arch} }
	cases := []struct {
		repoTag string
		index   bool
		want    []imageinfo.Platform
	}{
		{rt.Servercore2019, true, []imageinfo.Platform{win("10.0.17763.5329")}},
		{rt.Servercore2022, true, []imageinfo.Platform{win("10.0.20348.2227", "win32k")}},
		{rt.Servercore2025, true, []imageinfo.Platform{win("10.0.26100.2314")}},
		{rt.MultiOS, true, []imageinfo.Platform{linux("amd64"), win("10.0.17763.5329"), win("10.0.20348.2227")}},
		{rt.MultiArch, true, []imageinfo.Platform{linux("amd64"), linux("arm64")}},
		{rt.NoOSVersion, true, []imageinfo.Platform{{OS: "windows", Architecture: "amd64"}}},
		{rt.Single2022, false, []imageinfo.Platform{win("10.0.20348.2227")}},
	}
	for _, c := range cases {
		t.Run(c.repoTag, func(t *testing.T) {
			a := resolve(r, srv.Ref(c.repoTag))
			if a.Err != nil || a.Source != imageinfo.SourceRegistry {
				t.Fatalf("answer from %s, err %v; want registry", a.Source, a.Err)
			}
			if !reflect.DeepEqual(a.Image.Platforms, c.want) {
				t.Errorf("platforms %v, want %v", a.Image.Platforms, c.want)
			}
			if a.Image.Index != c.index || !a.Image.Known || !a.Image.Cataloged {
				t.Errorf("Index=%v Known=%v Cataloged=%v, want Index=%v and both known", a.Image.Index, a.Image.Known, a.Image.Cataloged, c.index)
			}
			if got, want := a.Image.Ref(), srv.Ref(c.repoTag); got != want {
				t.Errorf("ref %s, want %s", got, want)
			}
		})
	}
}

// rule: IMG-2 — the registry's builds feed the same host matching as the
// catalog's: a 2022 image runs on a 2022 host and not on a 2019 one, a
// 2025 host also runs it, and an entry without os.version runs anywhere.
func TestRegistryAnswerFeedsHostMatching(t *testing.T) {
	srv := rt.Start(t)
	srv.PushFixtures(t)
	r := newResolver(t, registry.Options{})
	host := func(build int) windows.Build { return windows.Build{Major: 10, Build: build} }

	img2022 := resolve(r, srv.Ref(rt.Servercore2022)).Image
	if _, err := imageinfo.MatchHost(img2022, "windows", "amd64", host(windows.Build2022)); err != nil {
		t.Errorf("2022 image on a 2022 host: %v", err)
	}
	if _, err := imageinfo.MatchHost(img2022, "windows", "amd64", host(windows.Build2025)); err != nil {
		t.Errorf("2022 image on a 2025 host: %v", err)
	}
	if _, err := imageinfo.MatchHost(img2022, "windows", "amd64", host(windows.Build2019)); !errors.Is(err, imageinfo.ErrOSVersionMismatch) {
		t.Errorf("2022 image on a 2019 host: %v, want an IMG-2 mismatch", err)
	}
	multi := resolve(r, srv.Ref(rt.MultiOS)).Image
	p, err := imageinfo.MatchHost(multi, "windows", "amd64", host(windows.Build2019))
	if err != nil || p.OSVersion != rt.Version2019 {
		t.Errorf("multi-OS image on a 2019 host picks %v (%v), want the 2019 entry", p, err)
	}
	anyBuild := resolve(r, srv.Ref(rt.NoOSVersion)).Image
	if _, err := imageinfo.MatchHost(anyBuild, "windows", "amd64", host(windows.Build2025)); err != nil {
		t.Errorf("entry without os.version on a 2025 host: %v", err)
	}
}

func TestCacheAnswersSecondLookup(t *testing.T) {
	srv := rt.Start(t)
	srv.PushFixtures(t)
	r := newResolver(t, registry.Options{})
	ref := srv.Ref(rt.Servercore2022)
	first := resolve(r, ref)
	served := srv.Requests()
	second := resolve(r, ref)
	if first.Source != imageinfo.SourceRegistry || second.Source != imageinfo.SourceCache {
		t.Fatalf("sources %s then %s, want registry then cache", first.Source, second.Source)
	}
	if srv.Requests() != served {
		t.Errorf("the cached look-up reached the registry (%d requests, was %d)", srv.Requests(), served)
	}
	if !reflect.DeepEqual(first.Image, second.Image) {
		t.Errorf("cached image %+v differs from fetched %+v", second.Image, first.Image)
	}
	// Callers may change what they get without changing the cache.
	second.Image.Platforms[0].OSFeatures[0] = "changed"
	if third := resolve(r, ref); third.Image.Platforms[0].OSFeatures[0] != "win32k" {
		t.Errorf("cache shares its platforms with callers: %v", third.Image.Platforms)
	}
	s := r.Stats()
	if s.CacheHits != 2 || s.CacheMisses != 1 || s.Fetches != 1 || s.RegistryErrors != 0 {
		t.Errorf("stats %+v, want 2 hits, 1 miss, 1 fetch, no errors", s)
	}
}

// fakeClock is a settable clock for TTLs.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestTagEntriesExpireDigestEntriesDoNot(t *testing.T) {
	srv := rt.Start(t)
	digest := srv.PushIndex(t, "apps/moving:1.0", rt.Windows(rt.Version2019))
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	r := newResolver(t, registry.Options{TTL: time.Minute, Now: clock.Now})
	tag, byDigest := srv.Ref("apps/moving:1.0"), srv.Ref("apps/moving@"+digest)

	if a := resolve(r, tag); a.Source != imageinfo.SourceRegistry {
		t.Fatalf("first look-up from %s (%v)", a.Source, a.Err)
	}
	// The tag's look-up also filed the manifest under its digest.
	if a := resolve(r, byDigest); a.Source != imageinfo.SourceCache {
		t.Errorf("digest after tag: from %s, want cache", a.Source)
	}
	// The tag moves to a 2022 build; within the TTL the old answer stands.
	srv.PushIndex(t, "apps/moving:1.0", rt.Windows(rt.Version2022))
	clock.Add(59 * time.Second)
	if a := resolve(r, tag); a.Source != imageinfo.SourceCache || a.Image.Platforms[0].OSVersion != rt.Version2019 {
		t.Errorf("within TTL: %s %v, want the cached 2019 entry", a.Source, a.Image.Platforms)
	}
	clock.Add(time.Second)
	if a := resolve(r, tag); a.Source != imageinfo.SourceRegistry || a.Image.Platforms[0].OSVersion != rt.Version2022 {
		t.Errorf("after TTL: %s %v, want the registry's 2022 entry", a.Source, a.Image.Platforms)
	}
	clock.Add(24 * time.Hour)
	if a := resolve(r, byDigest); a.Source != imageinfo.SourceCache || a.Image.Platforms[0].OSVersion != rt.Version2019 {
		t.Errorf("digest a day later: %s %v, want the cached 2019 entry", a.Source, a.Image.Platforms)
	}
	if a := resolve(r, byDigest); a.Image.Digest != digest || a.Image.Tag != "" {
		t.Errorf("digest answer names tag %q digest %q, want the reference as asked", a.Image.Tag, a.Image.Digest)
	}
}

func TestCacheIsBounded(t *testing.T) {
	srv := rt.Start(t)
	var digests []string
	for _, tag := range []string{"1", "2", "3"} {
		digests = append(digests, srv.PushIndex(t, "apps/many:"+tag, rt.Windows(rt.Version2022)))
	}
	r := newResolver(t, registry.Options{CacheSize: 2})
	for _, d := range digests {
		resolve(r, srv.Ref("apps/many@"+d))
	}
	if n := r.Stats().CacheEntries; n != 2 {
		t.Errorf("%d cache entries, want the bound 2", n)
	}
	if a := resolve(r, srv.Ref("apps/many@"+digests[2])); a.Source != imageinfo.SourceCache {
		t.Errorf("most recent entry from %s, want cache", a.Source)
	}
	if a := resolve(r, srv.Ref("apps/many@"+digests[0])); a.Source != imageinfo.SourceRegistry {
		t.Errorf("least recent entry from %s, want registry (evicted)", a.Source)
	}
}

func TestMirrorRewritesRegistry(t *testing.T) {
	srv := rt.Start(t)
	srv.PushIndex(t, "library/web:1.0", rt.Linux("amd64"), rt.Windows(rt.Version2025))
	mirrors, err := registry.ParseMirrors([]string{"docker.io=" + srv.Host})
	if err != nil {
		t.Fatal(err)
	}
	r := newResolver(t, registry.Options{Mirrors: mirrors})
	for _, ref := range []string{"web:1.0", "docker.io/library/web:1.0", "index.docker.io/library/web:1.0"} {
		a := resolve(r, ref)
		if a.Err != nil || len(a.Image.Platforms) != 2 {
			t.Errorf("%s through the mirror: %s %v (%v)", ref, a.Source, a.Image.Platforms, a.Err)
		}
		if a.Image.Repository != "docker.io/library/web" {
			t.Errorf("%s answers for %s, want the name the pod used", ref, a.Image.Repository)
		}
	}
}

func TestParseMirrors(t *testing.T) {
	got, err := registry.ParseMirrors([]string{"index.docker.io=127.0.0.1:5000", "quay.io=http://mirror.local/quay/"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"docker.io": "127.0.0.1:5000", "quay.io": "mirror.local/quay"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []string{"docker.io", "=127.0.0.1:5000", "docker.io=", "docker.io/library=x", "docker.io=a"} {
		_, err := registry.ParseMirrors([]string{"docker.io=b", bad})
		if err == nil || !strings.Contains(err.Error(), "--registry-mirror") {
			t.Errorf("%q: err %v, want an error naming --registry-mirror", bad, err)
		}
	}
}

func TestPullSecretsAuthenticate(t *testing.T) {
	srv := rt.Start(t, rt.WithBasicAuth("puller", "s3cret"))
	srv.PushFixtures(t)
	r := newResolver(t, registry.Options{})
	ref := srv.Ref(rt.Servercore2025)

	a := resolve(r, ref)
	if a.Err == nil || !errors.Is(a.Err, registry.ErrUnauthorized) || a.Source != imageinfo.SourceUnknown {
		t.Fatalf("anonymous: %s, err %v; want the fallback with an access error", a.Source, a.Err)
	}
	if msg := a.Err.Error(); !strings.Contains(msg, "registry "+srv.Host) || !strings.Contains(msg, "401 Unauthorized") {
		t.Errorf("error %q should name the registry and the status", msg)
	}

	auth := base64.StdEncoding.EncodeToString([]byte("puller:s3cret"))
	wrong := rt.DockerConfigJSON(srv.Host, "puller", "wrong")
	secrets := map[string][][]byte{
		"dockerconfigjson":         {rt.DockerConfigJSON(srv.Host, "puller", "s3cret")},
		"auth field with scheme":   {[]byte(`{"auths":{"http://` + srv.Host + `/v2/":{"auth":"` + auth + `"}}}`)},
		"legacy dockercfg":         {[]byte(`{"` + srv.Host + `":{"auth":"` + auth + `","email":"a@example.com"}}`)},
		"wrong secret, then right": {wrong, rt.DockerConfigJSON(srv.Host, "puller", "s3cret")},
		"other host, then right":   {rt.DockerConfigJSON("quay.io", "x", "y"), rt.DockerConfigJSON(srv.Host, "puller", "s3cret")},
	}
	for name, s := range secrets {
		t.Run(name, func(t *testing.T) {
			r := newResolver(t, registry.Options{})
			a := resolve(r, ref, s...)
			if a.Err != nil || a.Source != imageinfo.SourceRegistry || a.Image.Platforms[0].OSVersion != rt.Version2025 {
				t.Errorf("answer %s %v, err %v; want the registry's 2025 entry", a.Source, a.Image.Platforms, a.Err)
			}
		})
	}
	if a := resolve(r, ref, wrong); !errors.Is(a.Err, registry.ErrUnauthorized) || !strings.Contains(a.Err.Error(), "tried 1 pull-secret credential") {
		t.Errorf("wrong secret only: err %v, want an access error saying what was tried", a.Err)
	}
}

func TestInsecureRegistrySkipsVerification(t *testing.T) {
	srv := rt.Start(t, rt.WithTLS())
	srv.PushFixtures(t)
	ref := srv.Ref(rt.Servercore2019)
	if a := resolve(newResolver(t, registry.Options{}), ref); a.Err == nil {
		t.Errorf("a self-signed registry not listed as insecure answered from %s", a.Source)
	}
	r := newResolver(t, registry.Options{Insecure: []string{srv.Host}})
	if a := resolve(r, ref); a.Err != nil || a.Source != imageinfo.SourceRegistry {
		t.Errorf("listed as insecure: %s, err %v; want the registry's answer", a.Source, a.Err)
	}
}

func TestNotFoundIsDistinguishable(t *testing.T) {
	srv := rt.Start(t)
	srv.PushFixtures(t)
	r := newResolver(t, registry.Options{})
	for _, ref := range []string{srv.Ref("windows/servercore:ltsc2016"), srv.Ref("nobody/here:1")} {
		a := resolve(r, ref)
		if !errors.Is(a.Err, registry.ErrNotFound) || errors.Is(a.Err, registry.ErrUnauthorized) {
			t.Errorf("%s: err %v, want ErrNotFound", ref, a.Err)
		}
		var re *registry.Error
		if !errors.As(a.Err, &re) || re.StatusCode != 404 || re.Registry != srv.Host {
			t.Errorf("%s: err %#v, want a *registry.Error with status 404 from %s", ref, a.Err, srv.Host)
		}
	}
}

func TestSlowRegistryFallsBack(t *testing.T) {
	host := rt.Slow(t, time.Hour)
	r := newResolver(t, registry.Options{Timeout: 100 * time.Millisecond})
	a := resolve(r, host+"/windows/servercore:ltsc2022")
	if a.Err == nil || a.Source != imageinfo.SourceUnknown {
		t.Fatalf("slow registry: %s, err %v; want the fallback with an error", a.Source, a.Err)
	}
	if !errors.Is(a.Err, context.DeadlineExceeded) || !strings.Contains(a.Err.Error(), "no answer within 100ms") {
		t.Errorf("err %v, want a deadline error naming the timeout", a.Err)
	}
	// A caller's own shorter deadline ends its wait too.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	long := newResolver(t, registry.Options{Timeout: time.Hour})
	if a := long.Resolve(ctx, imageinfo.Request{Ref: host + "/app:1"}); a.Err == nil || !errors.Is(a.Err, context.DeadlineExceeded) {
		t.Errorf("caller deadline: err %v, want deadline exceeded", a.Err)
	}
}

func TestFailingRegistryFallsBackToCatalog(t *testing.T) {
	failing := rt.Failing(t, 500)
	closed := rt.Start(t)
	closed.Close()
	for name, host := range map[string]string{"500": failing, "closed": closed.Host} {
		t.Run(name, func(t *testing.T) {
			// The catalog knows mcr.microsoft.com's servercore; a mirror
			// sends the look-up to the broken registry.
			r := newResolver(t, registry.Options{Mirrors: map[string]string{"mcr.microsoft.com": host}})
			a := resolve(r, "mcr.microsoft.com/windows/servercore:ltsc2022")
			if a.Err == nil || a.Source != imageinfo.SourceCatalog {
				t.Fatalf("answer from %s, err %v; want the catalog with an error", a.Source, a.Err)
			}
			if !reflect.DeepEqual(a.Image, imageinfo.Lookup("mcr.microsoft.com/windows/servercore:ltsc2022")) {
				t.Errorf("fallback image %+v is not the catalog's", a.Image)
			}
			if !strings.Contains(a.Err.Error(), "registry "+host) || errors.Is(a.Err, registry.ErrNotFound) {
				t.Errorf("err %v, want one naming %s and not 'not found'", a.Err, host)
			}
			if name == "500" && !strings.Contains(a.Err.Error(), "500 Internal Server Error") {
				t.Errorf("err %v, want the status", a.Err)
			}
			if s := r.Stats(); s.RegistryErrors != 1 {
				t.Errorf("stats %+v, want one registry error", s)
			}
		})
	}
}

func TestFailuresAreRememberedBriefly(t *testing.T) {
	srv := rt.Start(t, rt.WithBasicAuth("puller", "s3cret"))
	srv.PushFixtures(t)
	ref := srv.Ref(rt.Servercore2022)
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	r := newResolver(t, registry.Options{ErrorTTL: 10 * time.Second, Now: clock.Now})

	first := resolve(r, ref)
	served := srv.Requests()
	second := resolve(r, ref)
	if !errors.Is(second.Err, registry.ErrUnauthorized) || second.Err.Error() != first.Err.Error() {
		t.Errorf("remembered failure: %v, want the first one (%v)", second.Err, first.Err)
	}
	if srv.Requests() != served {
		t.Errorf("a remembered failure reached the registry again")
	}
	clock.Add(10 * time.Second)
	if a := resolve(r, ref); !errors.Is(a.Err, registry.ErrUnauthorized) || srv.Requests() == served {
		t.Errorf("after ErrorTTL: %v, want the registry asked again", a.Err)
	}
	// Other credentials are another look-up. Its answer is cached for
	// those credentials only: an anonymous caller is still refused (from
	// the remembered failure), as the runtime would refuse its pull.
	secret := rt.DockerConfigJSON(srv.Host, "puller", "s3cret")
	if a := resolve(r, ref, secret); a.Err != nil {
		t.Errorf("with a pull secret after an anonymous failure: %v", a.Err)
	}
	if a := resolve(r, ref, secret); a.Source != imageinfo.SourceCache {
		t.Errorf("the secret's second look-up: from %s (%v), want cache", a.Source, a.Err)
	}
	if a := resolve(r, ref); !errors.Is(a.Err, registry.ErrUnauthorized) {
		t.Errorf("anonymous after the secret's answer: from %s (%v), want the registry's refusal", a.Source, a.Err)
	}
	if s := r.Stats(); s.Fetches != 3 || s.RememberedErrors != 2 || s.RegistryErrors != 2 {
		t.Errorf("stats %+v, want 3 fetches (anonymous, anonymous after ErrorTTL, with secret), 2 remembered, 2 errors", s)
	}

	never := newResolver(t, registry.Options{ErrorTTL: -1})
	resolve(never, ref)
	resolve(never, ref)
	if s := never.Stats(); s.Fetches != 2 || s.RememberedErrors != 0 {
		t.Errorf("ErrorTTL<0: stats %+v, want every look-up to ask", s)
	}
}

func TestConcurrentLookupsAreCollapsed(t *testing.T) {
	srv := rt.Start(t)
	srv.PushFixtures(t)
	r := newResolver(t, registry.Options{})
	var wg sync.WaitGroup
	answers := make([]imageinfo.Answer, 20)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = resolve(r, srv.Ref(rt.MultiOS))
		}()
	}
	wg.Wait()
	for i, a := range answers {
		if a.Err != nil || len(a.Image.Platforms) != 3 {
			t.Errorf("caller %d: %v (%v)", i, a.Image.Platforms, a.Err)
		}
	}
	if s := r.Stats(); s.Fetches != 1 {
		t.Errorf("%d fetches for 20 identical look-ups, want 1", s.Fetches)
	}
}

func BenchmarkResolveCached(b *testing.B) {
	srv := rt.Start(b)
	srv.PushFixtures(b)
	r := newResolver(b, registry.Options{})
	ref := srv.Ref(rt.MultiOS)
	if a := resolve(r, ref); a.Err != nil {
		b.Fatal(a.Err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if a := r.Resolve(ctx, imageinfo.Request{Ref: ref}); a.Source != imageinfo.SourceCache {
			b.Fatalf("from %s", a.Source)
		}
	}
}
