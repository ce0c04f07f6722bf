package imageinfo

import "context"

// Source says where an answer about an image came from, so every report can
// tell a registry's word from the catalog's guess.
type Source string

// The sources a Resolver answers from.
const (
	// SourceRegistry: read from the registry just now.
	SourceRegistry Source = "registry"
	// SourceCache: read from the registry earlier: still fresh, or kept
	// in the data dir for when the registry cannot be reached.
	SourceCache Source = "cache"
	// SourceImported: a user gave the facts (winkube image import, the
	// cluster config's images section).
	SourceImported Source = "imported"
	// SourceCatalog: the built-in catalog knows the image.
	SourceCatalog Source = "catalog"
	// SourceUnknown: nobody knows the image; Platforms is a guess.
	SourceUnknown Source = "unknown"
)

// Request asks for one image's platforms.
type Request struct {
	// Ref is the image reference as written in the pod spec.
	Ref string
	// PullSecrets are .dockerconfigjson (or legacy .dockercfg) payloads:
	// the pod's imagePullSecrets and then its service account's, tried in
	// that order before anonymous access, as the kubelet does.
	PullSecrets [][]byte
}

// Answer is what a Resolver knows about an image.
type Answer struct {
	Image  Image
	Source Source
	// Err is the registry error when the answer fell back to the catalog
	// (or to the unknown guess); nil otherwise.
	Err error
}

// Resolver answers image platforms. Implementations must be safe for
// concurrent use and return within the context's deadline.
type Resolver interface {
	Resolve(ctx context.Context, req Request) Answer
}

// CatalogResolver answers from the built-in catalog only; it does no I/O
// and is the offline default of lint and the emulated nodes.
type CatalogResolver struct{}

// Resolve looks ref up in the catalog.
func (CatalogResolver) Resolve(_ context.Context, req Request) Answer {
	return CatalogAnswer(req.Ref)
}

// CatalogAnswer is the catalog's answer for ref, with its source.
func CatalogAnswer(ref string) Answer {
	img := Lookup(ref)
	src := SourceCatalog
	if !img.Cataloged {
		src = SourceUnknown
	}
	return Answer{Image: img, Source: src}
}
