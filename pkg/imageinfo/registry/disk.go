package registry

import (
	"slices"

	"github.com/winkube/winkube/pkg/imageinfo/facts"
)

// keep writes a public answer to Disk under the reference asked and, for
// a tag, under its digest too. An answer Disk already has (same digest
// and platforms) is not written again, so a tag's answer refreshed every
// TTL costs no write.
func (r *Resolver) keep(key string, t target, info manifestInfo) {
	if r.disk == nil {
		return
	}
	f := facts.Fact{Ref: key, Digest: info.digest, Index: info.index, From: repoHost(t.repository), Time: r.now().UTC()}
	for _, p := range info.platforms {
		f.Platforms = append(f.Platforms, facts.Platform{OS: p.OS, Architecture: p.Architecture,
			OSVersion: p.OSVersion, OSFeatures: p.OSFeatures})
	}
	if old, ok := r.disk.Get(key); ok && old.Digest == f.Digest && slices.EqualFunc(old.Platforms, f.Platforms, samePlatform) {
		return
	}
	out := []facts.Fact{f}
	if t.digest == "" && info.digest != "" {
		d := f
		d.Ref = t.named + "@" + info.digest
		out = append(out, d)
	}
	// A cache that cannot be written costs the offline answer, not this one.
	_ = r.disk.Put(out...)
}

func samePlatform(a, b facts.Platform) bool {
	return a.OS == b.OS && a.Architecture == b.Architecture && a.Variant == b.Variant &&
		a.OSVersion == b.OSVersion && slices.Equal(a.OSFeatures, b.OSFeatures)
}
