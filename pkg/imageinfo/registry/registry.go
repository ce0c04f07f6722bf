// Package registry answers image platforms from the image's registry (rule
// IMG-3): an index's manifests[].platform entries, or a single image's
// config, read with go-containerregistry. It authenticates with the pod's
// pull secrets the way the kubelet does, rewrites registries to mirrors,
// caches answers (by digest for good, by tag for a TTL), collapses
// identical concurrent look-ups, and falls back to another Resolver (the
// built-in catalog by default) when the registry cannot answer in time.
//
// An answer read from a registry (Source registry or cache) has Known and
// Cataloged both true: its Platforms are the registry's word, not a guess,
// so lint and the emulated nodes treat it like a catalog entry whose tag
// is known. A fallback answer is the fallback's own, with Err saying why
// the registry did not answer.
//
// Answers of public images (read without credentials) are cached for every
// caller; an image the registry shows only to a pull secret is cached for
// that set of secrets alone, so a pod without the secret is refused as the
// runtime would refuse its pull, and learns nothing of a private image.
// Failures are remembered briefly (Options.ErrorTTL); identical look-ups
// in flight are collapsed.
package registry

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/remote"
	"golang.org/x/sync/singleflight"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/facts"
)

// Defaults for zero Options fields.
const (
	DefaultTimeout   = 3 * time.Second
	DefaultCacheSize = 4096
	DefaultTTL       = 10 * time.Minute
	DefaultErrorTTL  = 10 * time.Second
)

// Options configures a Resolver. The zero value is usable.
type Options struct {
	// Mirrors maps a registry host to the host (and optional path prefix)
	// to ask instead, as ParseMirrors returns it.
	Mirrors map[string]string
	// Timeout bounds one registry look-up (default 3s). The caller's
	// context may end it sooner; the look-up then goes on in the
	// background, up to Timeout, to fill the cache.
	Timeout time.Duration
	// CacheSize bounds the number of cached manifests (default 4096).
	CacheSize int
	// TTL is how long a tag's answer is trusted (default 10m). Answers for
	// digests never expire; they only leave the cache by size.
	TTL time.Duration
	// ErrorTTL is how long a failed look-up is remembered, so that a
	// registry that is down or slow costs one wait, not one per request
	// (default 10s; negative: failures are not remembered). A failure is
	// remembered per reference and set of pull secrets.
	ErrorTTL time.Duration
	// Insecure lists registry hosts reached over plain HTTP or TLS without
	// verification (Docker's --insecure-registry). Loopback and localhost
	// registries may use plain HTTP without being listed.
	Insecure []string
	// Fallback answers when the registry cannot (default
	// imageinfo.CatalogResolver).
	Fallback imageinfo.Resolver
	// Now is the clock for TTLs (default time.Now).
	Now func() time.Time
	// Disk, when set, keeps the registries' answers of public images
	// (read without pull secrets) in a data dir, to answer from when the
	// registry cannot be reached, today or after a restart.
	Disk *facts.Store
	// Imported, when set, are the facts users imported: they answer
	// before the registry is asked (facts.Resolver).
	Imported *facts.Store
}

// Resolver reads image platforms from registries. It implements
// imageinfo.Resolver and is safe for concurrent use.
type Resolver struct {
	mirrors           map[string]string
	timeout           time.Duration
	ttl               time.Duration
	errorTTL          time.Duration
	insecure          map[string]bool
	fallback          imageinfo.Resolver
	now               func() time.Time
	cache             *cache
	disk              *facts.Store
	imported          *facts.Store
	flight            singleflight.Group
	transport         http.RoundTripper
	insecureTransport http.RoundTripper

	hits, misses, fetches, errors, failHits atomic.Uint64
}

var _ imageinfo.Resolver = (*Resolver)(nil)

// New returns a Resolver with opts' zero fields set to their defaults.
func New(opts Options) (*Resolver, error) {
	r := &Resolver{
		mirrors:  map[string]string{},
		timeout:  orDefault(opts.Timeout, DefaultTimeout),
		ttl:      orDefault(opts.TTL, DefaultTTL),
		errorTTL: opts.ErrorTTL,
		insecure: map[string]bool{},
		fallback: opts.Fallback,
		now:      opts.Now,
		disk:     opts.Disk,
		imported: opts.Imported,
	}
	for from, to := range opts.Mirrors {
		to = strings.Trim(strings.ToLower(strings.TrimSpace(to)), "/")
		if normaliseHost(from) == "" || to == "" {
			return nil, fmt.Errorf("%s %q=%q: want FROM=TO, e.g. docker.io=127.0.0.1:5000", MirrorFlag, from, to)
		}
		r.mirrors[normaliseHost(from)] = to
	}
	for _, h := range opts.Insecure {
		r.insecure[normaliseHost(h)] = true
	}
	if r.fallback == nil {
		r.fallback = imageinfo.CatalogResolver{}
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.errorTTL == 0 {
		r.errorTTL = DefaultErrorTTL
	}
	size := opts.CacheSize
	if size <= 0 {
		size = DefaultCacheSize
	}
	r.cache = newCache(size)
	base, ok := remote.DefaultTransport.(*http.Transport)
	if !ok {
		base = http.DefaultTransport.(*http.Transport)
	}
	r.transport = base.Clone()
	insecure := base.Clone()
	insecure.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // only for hosts the user listed as insecure
	r.insecureTransport = insecure
	return r, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Resolve answers req from the cache, else from the registry (mirrored if
// configured), else from the fallback with Err set. It returns by ctx's
// deadline even when the registry is slower (rule IMG-3).
func (r *Resolver) Resolve(ctx context.Context, req imageinfo.Request) imageinfo.Answer {
	if r.imported != nil {
		if f, ok := r.imported.Get(req.Ref); ok {
			return imageinfo.Answer{Image: f.Image(req.Ref), Source: imageinfo.SourceImported}
		}
	}
	want := imageinfo.Lookup(req.Ref)
	key := cacheKey(want)
	// Look-ups with different secrets are neither collapsed nor share a
	// failure or a private answer: one may be refused where the other is
	// let in.
	flightKey := key + "\x00" + fingerprint(req.PullSecrets)
	if info, ok := r.cached(key, flightKey); ok {
		r.hits.Add(1)
		return answerFrom(want, info, imageinfo.SourceCache)
	}
	r.misses.Add(1)
	if err, ok := r.cache.getErr(errorKey(flightKey), r.now()); ok {
		r.failHits.Add(1)
		return r.fall(ctx, req, err)
	}
	t := target{repository: mirrored(r.mirrors, want.Repository), named: want.Repository, tag: want.Tag, digest: want.Digest}
	ch := r.flight.DoChan(flightKey, func() (any, error) {
		return r.lookup(ctx, key, flightKey, t, req.PullSecrets)
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			return r.fall(ctx, req, res.Err)
		}
		return answerFrom(want, res.Val.(manifestInfo), imageinfo.SourceRegistry)
	case <-ctx.Done():
		return r.fall(ctx, req, &Error{Registry: repoHost(t.repository), Ref: t.ref(),
			Detail: "gave up waiting: " + ctx.Err().Error(), Err: ctx.Err()})
	}
}

// lookup fetches one manifest and caches it. It runs once per collapsed
// group, detached from the first caller's cancellation so that the others
// (and the cache) still get the answer.
func (r *Resolver) lookup(ctx context.Context, key, flightKey string, t target, secrets [][]byte) (manifestInfo, error) {
	// A caller that missed the cache just before an earlier group stored
	// its answer must not fetch again.
	if info, ok := r.cached(key, flightKey); ok {
		return info, nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.timeout)
	defer cancel()
	r.fetches.Add(1)
	info, err := r.fetch(ctx, t, secrets)
	if err != nil {
		r.errors.Add(1)
		if r.errorTTL > 0 {
			r.cache.putErr(errorKey(flightKey), err, r.now().Add(r.errorTTL))
		}
		return manifestInfo{}, err
	}
	// A private answer is filed under the secrets that let it in.
	suffix := ""
	if info.private {
		suffix = flightKey[len(key):]
	} else {
		r.keep(key, t, info)
	}
	if t.digest != "" {
		r.cache.put(key+suffix, info, time.Time{})
		return info, nil
	}
	r.cache.put(key+suffix, info, r.now().Add(r.ttl))
	if info.digest != "" {
		r.cache.put(t.named+"@"+info.digest+suffix, info, time.Time{})
	}
	return info, nil
}

// cached is the cache's answer for everyone (key) or, failing that, for
// the request's pull secrets (flightKey).
func (r *Resolver) cached(key, flightKey string) (manifestInfo, bool) {
	if info, ok := r.cache.get(key, r.now()); ok {
		return info, true
	}
	return r.cache.get(flightKey, r.now())
}

// fall is the answer the registry gave earlier (Disk) when it cannot be
// reached now, else the fallback's answer with the registry's error. A
// registry that says "not found" or refuses the pull is not overruled by
// what it said before.
func (r *Resolver) fall(ctx context.Context, req imageinfo.Request, err error) imageinfo.Answer {
	if r.disk != nil && Missing(err) == nil {
		if f, ok := r.disk.Get(req.Ref); ok {
			return imageinfo.Answer{Image: f.Image(req.Ref), Source: imageinfo.SourceCache}
		}
	}
	a := r.fallback.Resolve(ctx, req)
	a.Err = err
	return a
}

// cacheKey is the normalised reference a cache entry is filed under: the
// digest when the reference pins one (a tag next to it does not matter,
// as for the runtimes), else the tag.
func cacheKey(img imageinfo.Image) string {
	if img.Digest != "" {
		return img.Repository + "@" + img.Digest
	}
	return img.Repository + ":" + img.Tag
}

// answerFrom builds the answer for the reference asked: its own
// repository, tag and digest, the cached manifest's platforms.
func answerFrom(want imageinfo.Image, info manifestInfo, src imageinfo.Source) imageinfo.Answer {
	img := want
	img.Platforms = clonePlatforms(info.platforms)
	img.Index = info.index
	img.Known, img.Cataloged = true, true
	return imageinfo.Answer{Image: img, Source: src}
}

func clonePlatforms(ps []imageinfo.Platform) []imageinfo.Platform {
	out := make([]imageinfo.Platform, len(ps))
	for i, p := range ps {
		if len(p.OSFeatures) > 0 {
			p.OSFeatures = append([]string(nil), p.OSFeatures...)
		}
		out[i] = p
	}
	return out
}

// errorKey files failures apart from answers.
func errorKey(flightKey string) string { return "!" + flightKey }

// fingerprint tells sets of pull secrets apart without keeping them.
func fingerprint(secrets [][]byte) string {
	if len(secrets) == 0 {
		return ""
	}
	h := sha256.New()
	for _, s := range secrets {
		h.Write([]byte{byte(len(s) >> 24), byte(len(s) >> 16), byte(len(s) >> 8), byte(len(s))})
		h.Write(s)
	}
	return string(h.Sum(nil))
}

// Stats are the Resolver's counters since New, for metrics.
type Stats struct {
	// CacheHits and CacheMisses count look-ups answered from the cache or
	// not.
	CacheHits, CacheMisses uint64
	// Fetches counts registry look-ups made (collapsed ones count once).
	Fetches uint64
	// RegistryErrors counts fetches that failed (the callers got the
	// fallback's answer).
	RegistryErrors uint64
	// RememberedErrors counts look-ups answered with a recent failure
	// (see Options.ErrorTTL) instead of asking the registry again.
	RememberedErrors uint64
	// CacheEntries is the number of manifests (and remembered failures)
	// cached now.
	CacheEntries int
}

// Stats returns the counters.
func (r *Resolver) Stats() Stats {
	return Stats{
		CacheHits:        r.hits.Load(),
		CacheMisses:      r.misses.Load(),
		Fetches:          r.fetches.Load(),
		RegistryErrors:   r.errors.Load(),
		RememberedErrors: r.failHits.Load(),
		CacheEntries:     r.cache.len(),
	}
}
