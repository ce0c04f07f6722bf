package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/winkube/winkube/pkg/imageinfo"
)

// The registry failures callers tell apart. Test with errors.Is on an
// Answer's Err.
var (
	// ErrNotFound: the registry has no such manifest or repository
	// (HTTP 404, MANIFEST_UNKNOWN or NAME_UNKNOWN); a pull would fail with
	// "not found".
	ErrNotFound = errors.New("manifest not found")
	// ErrUnauthorized: the registry refused every credential tried and
	// anonymous access (HTTP 401 or 403).
	ErrUnauthorized = errors.New("access denied")
)

// Error is a failed look-up, naming the registry contacted and the
// reference asked for: "registry 127.0.0.1:5000: GET manifest for
// 127.0.0.1:5000/app:1.0: 401 Unauthorized".
type Error struct {
	// Registry is the host contacted (after mirror rewriting).
	Registry string
	// Ref is the reference asked of that registry.
	Ref string
	// StatusCode is the HTTP status of the failing response; 0 when there
	// was none (timeout, connection refused, bad reference).
	StatusCode int
	// Detail is the short reason shown after the reference.
	Detail string
	// Err is the underlying error.
	Err error
}

func (e *Error) Error() string {
	return fmt.Sprintf("registry %s: GET manifest for %s: %s", e.Registry, e.Ref, e.Detail)
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrNotFound) and errors.Is(err, ErrUnauthorized)
// work on the status code.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden
	}
	return false
}

// target is one look-up: the repository to contact and what to ask for.
type target struct {
	repository string // contacted, after mirror rewriting
	named      string // as the pod named it, normalised
	tag        string
	digest     string
}

func (t target) ref() string {
	if t.digest != "" {
		return t.repository + "@" + t.digest
	}
	return t.repository + ":" + t.tag
}

// fetch reads the manifest behind t, trying each authenticator in order
// until one is not refused.
func (r *Resolver) fetch(ctx context.Context, t target, secrets [][]byte) (manifestInfo, error) {
	host := repoHost(t.repository)
	ref, err := r.parseRef(t)
	if err != nil {
		return manifestInfo{}, &Error{Registry: host, Ref: t.ref(), Detail: "invalid reference: " + err.Error(), Err: err}
	}
	auths := authenticators(secrets, t.repository, t.named)
	var last error
	for _, auth := range auths {
		info, err := r.fetchWith(ctx, ref, auth)
		if err == nil {
			// Only an answer read without credentials is everybody's.
			info.private = auth != authn.Anonymous
			return info, nil
		}
		last = err
		if !errors.Is(err, ErrUnauthorized) {
			break
		}
	}
	if e := (*Error)(nil); errors.As(last, &e) && e.Is(ErrUnauthorized) && len(auths) > 1 {
		e.Detail += fmt.Sprintf(" (tried %d pull-secret credential(s), then anonymous)", len(auths)-1)
	}
	return manifestInfo{}, last
}

func (r *Resolver) parseRef(t target) (name.Reference, error) {
	var opts []name.Option
	if r.insecure[normaliseHost(repoHost(t.repository))] {
		opts = append(opts, name.Insecure)
	}
	if t.digest != "" {
		return name.NewDigest(t.ref(), opts...)
	}
	return name.NewTag(t.ref(), opts...)
}

// fetchWith reads one manifest with one authenticator: an index's entries
// or a single image's config.
func (r *Resolver) fetchWith(ctx context.Context, ref name.Reference, auth authn.Authenticator) (manifestInfo, error) {
	opts := []remote.Option{
		remote.WithContext(ctx),
		remote.WithAuth(auth),
		remote.WithTransport(r.transportFor(ref.Context().RegistryStr())),
		// The caller has a deadline and a fallback: a retry would only
		// turn a clear error into a timeout.
		remote.WithRetryBackoff(remote.Backoff{Steps: 1}),
		remote.WithRetryStatusCodes(),
		remote.WithRetryPredicate(func(error) bool { return false }),
		remote.WithUserAgent("winkube"),
	}
	desc, err := remote.Get(ref, opts...)
	if err != nil {
		return manifestInfo{}, r.wrap(ctx, ref, err)
	}
	info := manifestInfo{digest: desc.Digest.String()}
	if desc.MediaType.IsIndex() {
		info.index = true
		info.platforms, err = indexPlatforms(desc)
	} else {
		info.platforms, err = imagePlatform(desc)
	}
	if err != nil {
		return manifestInfo{}, r.wrap(ctx, ref, err)
	}
	return info, nil
}

// indexPlatforms reads manifests[].platform of an index (IMG-3). Entries
// without a platform are read from their config, as the runtimes do;
// attestation entries (platform unknown/unknown, written by BuildKit) and
// nested indexes are not runnable and are left out.
func indexPlatforms(desc *remote.Descriptor) ([]imageinfo.Platform, error) {
	idx, err := desc.ImageIndex()
	if err != nil {
		return nil, err
	}
	manifest, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	var out []imageinfo.Platform
	for _, m := range manifest.Manifests {
		if m.MediaType.IsIndex() {
			continue
		}
		if m.Platform == nil {
			img, err := idx.Image(m.Digest)
			if err != nil {
				return nil, fmt.Errorf("index entry %s has no platform and its config cannot be read: %w", m.Digest, err)
			}
			p, err := configPlatform(img)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
			continue
		}
		if m.Platform.OS == "unknown" {
			continue
		}
		out = append(out, platformOf(*m.Platform))
	}
	return out, nil
}

// imagePlatform reads a single-platform image's config: its os,
// architecture, os.version and os.features.
func imagePlatform(desc *remote.Descriptor) ([]imageinfo.Platform, error) {
	img, err := desc.Image()
	if err != nil {
		return nil, err
	}
	p, err := configPlatform(img)
	if err != nil {
		return nil, err
	}
	return []imageinfo.Platform{p}, nil
}

func configPlatform(img v1.Image) (imageinfo.Platform, error) {
	cfg, err := img.ConfigFile()
	if err != nil {
		return imageinfo.Platform{}, fmt.Errorf("reading image config: %w", err)
	}
	return platformOf(v1.Platform{OS: cfg.OS, Architecture: cfg.Architecture,
		OSVersion: cfg.OSVersion, OSFeatures: cfg.OSFeatures}), nil
}

func platformOf(p v1.Platform) imageinfo.Platform {
	out := imageinfo.Platform{OS: p.OS, Architecture: p.Architecture, OSVersion: p.OSVersion}
	if len(p.OSFeatures) > 0 {
		out.OSFeatures = append([]string(nil), p.OSFeatures...)
	}
	return out
}

// wrap turns a ggcr error into an Error with a short reason: the HTTP
// status and the registry's error codes, or the timeout.
func (r *Resolver) wrap(ctx context.Context, ref name.Reference, err error) *Error {
	e := &Error{Registry: ref.Context().RegistryStr(), Ref: ref.Name(), Err: err, Detail: err.Error()}
	var te *transport.Error
	switch {
	case errors.As(err, &te):
		e.StatusCode = te.StatusCode
		e.Detail = fmt.Sprintf("%d %s", te.StatusCode, http.StatusText(te.StatusCode))
		var codes []string
		for _, d := range te.Errors {
			codes = append(codes, string(d.Code))
		}
		if len(codes) > 0 {
			e.Detail += " (" + strings.Join(codes, ", ") + ")"
		}
	case errors.Is(err, syscall.ECONNREFUSED):
		e.Detail = "connection refused"
	case ctx.Err() != nil:
		e.Err = fmt.Errorf("%w: %w", ctx.Err(), err)
		e.Detail = fmt.Sprintf("no answer within %s", r.timeout)
	}
	return e
}

// transportFor picks the transport for a registry: hosts marked insecure
// skip TLS verification, as Docker's --insecure-registry does.
func (r *Resolver) transportFor(host string) http.RoundTripper {
	if r.insecure[normaliseHost(host)] {
		return r.insecureTransport
	}
	return r.transport
}

// Missing maps a registry error to why a pull of the image fails on a node
// (imageinfo.Image.Missing): a tag or repository the registry lacks, or
// credentials it refuses. Other errors (slow, unreachable) say nothing
// about the image, so they give nil.
func Missing(err error) error {
	switch {
	case errors.Is(err, ErrNotFound):
		return imageinfo.ErrTagNotFound
	case errors.Is(err, ErrUnauthorized):
		return imageinfo.ErrUnauthorized
	}
	return nil
}
