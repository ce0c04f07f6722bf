package facts

import (
	"context"

	"github.com/winkube/winkube/pkg/imageinfo"
)

// Resolver answers from the imported facts before asking Next: what a
// user imported is their word about their image, over the catalog's and
// over a registry the machine may not reach.
type Resolver struct {
	Facts *Store
	Next  imageinfo.Resolver
	// Source is what answers from Facts say they are (default
	// imageinfo.SourceImported; SourceCache for kept registry answers).
	Source imageinfo.Source
}

var _ imageinfo.Resolver = Resolver{}

// Resolve is the imported fact for req.Ref, else Next's answer.
func (r Resolver) Resolve(ctx context.Context, req imageinfo.Request) imageinfo.Answer {
	if r.Facts != nil {
		if f, ok := r.Facts.Get(req.Ref); ok {
			src := r.Source
			if src == "" {
				src = imageinfo.SourceImported
			}
			return imageinfo.Answer{Image: f.Image(req.Ref), Source: src}
		}
	}
	if r.Next == nil {
		return imageinfo.CatalogAnswer(req.Ref)
	}
	return r.Next.Resolve(ctx, req)
}
