package facts

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// maxMetadata bounds the tar entries read into memory: manifests, indexes
// and configs are a few kilobytes; layers, which are not read, are larger.
const maxMetadata = 4 << 20

// Import reads the image facts a file gives: a docker-archive (`docker
// save`), an OCI image layout (a directory or its tar), the JSON of
// `crane manifest` or `docker manifest inspect [-v]`, or an image config
// (`crane config`). ref names the image of a file that names none (a
// manifest's JSON, an archive without tags); the file's own names win.
// Errors name the file. Nothing is stored; the caller Puts the facts.
func Import(file, ref string, now time.Time) ([]Fact, error) {
	facts, err := importFile(file, ref)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Path == file {
		err = pe.Err // the file is named once, in front
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(facts) == 0 {
		return nil, fmt.Errorf("%s: not an image: it holds no image manifest", file)
	}
	abs, _ := filepath.Abs(file)
	for i := range facts {
		facts[i].From, facts[i].Time = abs, now.UTC()
	}
	return withDigests(facts), nil
}

func importFile(file, ref string) ([]Fact, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(file, "index.json")); err != nil {
			return nil, errors.New("not an image: a directory must be an OCI image layout, and this one has no index.json")
		}
		return readLayout(dirBlobs(file), ref)
	}
	b, err := readHead(file)
	if err != nil {
		return nil, err
	}
	if j := bytes.TrimSpace(b); len(j) > 0 && (j[0] == '{' || j[0] == '[') {
		return readJSON(j, ref)
	}
	entries, err := readTar(file)
	if err != nil {
		return nil, err
	}
	switch {
	case entries["manifest.json"] != nil:
		return readDockerArchive(entries, ref)
	case entries["index.json"] != nil:
		return readLayout(tarBlobs(entries), ref)
	}
	return nil, errors.New("not an image: a tar must hold a docker-archive's manifest.json or an OCI layout's index.json")
}

// readHead reads a file whole when it is small enough to be JSON, else
// its first bytes (enough to tell JSON from a tar).
func readHead(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxMetadata))
}

// readTar reads the small entries of a tar by cleaned name.
func readTar(file string) (map[string][]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("not an image: reading it as a tar: %w", err)
		}
		if h.Typeflag != tar.TypeReg || h.Size > maxMetadata {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("reading %s in the tar: %w", h.Name, err)
		}
		out[path.Clean(strings.TrimPrefix(h.Name, "./"))] = b
	}
}

// dockerManifest is one entry of a docker-archive's manifest.json.
type dockerManifest struct {
	Config   string
	RepoTags []string
}

func readDockerArchive(entries map[string][]byte, ref string) ([]Fact, error) {
	var ms []dockerManifest
	if err := json.Unmarshal(entries["manifest.json"], &ms); err != nil {
		return nil, fmt.Errorf("not an image: manifest.json: %w", err)
	}
	var out []Fact
	for i, m := range ms {
		cfg, ok := entries[path.Clean(m.Config)]
		if !ok {
			return nil, fmt.Errorf("manifest.json[%d]: its config %s is not in the archive", i, m.Config)
		}
		f, err := configFact(cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Config, err)
		}
		refs := m.RepoTags
		if len(refs) == 0 {
			if ref == "" {
				return nil, fmt.Errorf("manifest.json[%d] names no image (no RepoTags); give its name with --ref", i)
			}
			refs = []string{ref}
		}
		for _, r := range refs {
			f.Ref = r
			out = append(out, f)
		}
	}
	return named(out)
}

// configFact is a single image's fact from its config: platform and
// default process.
func configFact(b []byte) (Fact, error) {
	cfg, err := v1.ParseConfigFile(bytes.NewReader(b))
	if err != nil {
		return Fact{}, fmt.Errorf("not an image config: %w", err)
	}
	if cfg.OS == "" || cfg.Architecture == "" {
		return Fact{}, errors.New("not an image config: it names no os and architecture")
	}
	f := Fact{Platforms: []Platform{{OS: cfg.OS, Architecture: cfg.Architecture, Variant: cfg.Variant,
		OSVersion: cfg.OSVersion, OSFeatures: cfg.OSFeatures}}}
	f.Entrypoint, f.Cmd, f.Env, f.User = cfg.Config.Entrypoint, cfg.Config.Cmd, cfg.Config.Env, cfg.Config.User
	return f, nil
}

// blobs reads a content-addressed blob of a layout.
type blobs struct {
	index func() ([]byte, error)
	blob  func(v1.Hash) ([]byte, error)
}

func dirBlobs(dir string) blobs {
	return blobs{
		index: func() ([]byte, error) { return os.ReadFile(filepath.Join(dir, "index.json")) },
		blob: func(h v1.Hash) ([]byte, error) {
			return os.ReadFile(filepath.Join(dir, "blobs", h.Algorithm, h.Hex))
		},
	}
}

func tarBlobs(entries map[string][]byte) blobs {
	get := func(name string) ([]byte, error) {
		b, ok := entries[name]
		if !ok {
			return nil, fmt.Errorf("%s is not in the tar", name)
		}
		return b, nil
	}
	return blobs{
		index: func() ([]byte, error) { return get("index.json") },
		blob:  func(h v1.Hash) ([]byte, error) { return get(path.Join("blobs", h.Algorithm, h.Hex)) },
	}
}

// The annotations naming an image in an OCI layout's index.json: the full
// name (containerd, `docker save` since 25) or the tag or name
// (image-spec).
const (
	containerdName = "io.containerd.image.name"
	ociRefName     = "org.opencontainers.image.ref.name"
)

// readLayout reads each entry of an OCI layout's index.json: an image
// index (its entries' platforms) or a single image (its config).
func readLayout(b blobs, ref string) ([]Fact, error) {
	raw, err := b.index()
	if err != nil {
		return nil, err
	}
	idx, err := v1.ParseIndexManifest(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not an image: index.json: %w", err)
	}
	var out []Fact
	for i, d := range idx.Manifests {
		f, err := layoutEntry(b, d)
		if err != nil {
			return nil, fmt.Errorf("index.json manifests[%d] (%s): %w", i, d.Digest, err)
		}
		f.Ref = d.Annotations[containerdName]
		if n := d.Annotations[ociRefName]; f.Ref == "" && strings.ContainsAny(n, "/:@") {
			f.Ref = n
		}
		if f.Ref == "" {
			f.Ref = ref
		}
		if f.Ref == "" {
			return nil, fmt.Errorf("index.json manifests[%d] names no image (no %s annotation); give its name with --ref", i, containerdName)
		}
		f.Digest = d.Digest.String()
		out = append(out, f)
	}
	return named(out)
}

func layoutEntry(b blobs, d v1.Descriptor) (Fact, error) {
	raw, err := b.blob(d.Digest)
	if err != nil {
		return Fact{}, err
	}
	if d.MediaType.IsIndex() {
		idx, err := v1.ParseIndexManifest(bytes.NewReader(raw))
		if err != nil {
			return Fact{}, err
		}
		f := Fact{Index: true}
		for _, e := range idx.Manifests {
			p, cfg, ok := indexEntry(b, e)
			if !ok {
				continue
			}
			f.Platforms = append(f.Platforms, p)
			if f.Entrypoint == nil && f.Cmd == nil && cfg != nil {
				f.Entrypoint, f.Cmd, f.Env, f.User = cfg.Entrypoint, cfg.Cmd, cfg.Env, cfg.User
			}
		}
		if len(f.Platforms) == 0 {
			return Fact{}, errors.New("the index has no entry with a platform")
		}
		return f, nil
	}
	m, err := v1.ParseManifest(bytes.NewReader(raw))
	if err != nil {
		return Fact{}, err
	}
	cfg, err := b.blob(m.Config.Digest)
	if err != nil {
		return Fact{}, fmt.Errorf("its config: %w", err)
	}
	return configFact(cfg)
}

// indexEntry is one entry of an index: its platform (from the descriptor,
// else its config) and its config when the layout has it. Attestations
// (unknown/unknown) and nested indexes are not runnable and are skipped,
// as the registry resolver skips them.
func indexEntry(b blobs, e v1.Descriptor) (Platform, *v1.Config, bool) {
	if e.MediaType.IsIndex() || (e.Platform != nil && e.Platform.OS == "unknown") {
		return Platform{}, nil, false
	}
	var cfg *v1.ConfigFile
	if raw, err := b.blob(e.Digest); err == nil {
		if m, err := v1.ParseManifest(bytes.NewReader(raw)); err == nil {
			if c, err := b.blob(m.Config.Digest); err == nil {
				cfg, _ = v1.ParseConfigFile(bytes.NewReader(c))
			}
		}
	}
	var p Platform
	switch {
	case e.Platform != nil:
		p = platformOf(*e.Platform)
	case cfg != nil:
		p = platformOf(v1.Platform{OS: cfg.OS, Architecture: cfg.Architecture, Variant: cfg.Variant, OSVersion: cfg.OSVersion, OSFeatures: cfg.OSFeatures})
	default:
		return Platform{}, nil, false
	}
	if cfg == nil {
		return p, nil, true
	}
	return p, &cfg.Config, true
}

func platformOf(p v1.Platform) Platform {
	return Platform{OS: p.OS, Architecture: p.Architecture, Variant: p.Variant, OSVersion: p.OSVersion, OSFeatures: p.OSFeatures}
}

// named checks and normalises the facts' references.
func named(facts []Fact) ([]Fact, error) {
	for i, f := range facts {
		if _, err := name.ParseReference(f.Ref); err != nil {
			return nil, fmt.Errorf("%q is not an image reference: %w", f.Ref, err)
		}
		facts[i].Ref = Key(f.Ref)
	}
	return facts, nil
}

// withDigests files a fact that knows its digest under repository@digest
// as well, so a reference pinning the digest finds it.
func withDigests(facts []Fact) []Fact {
	out := facts
	for _, f := range facts {
		if f.Digest == "" || strings.Contains(f.Ref, "@") {
			continue
		}
		d := f
		d.Ref = Key(repositoryOf(f.Ref) + "@" + f.Digest)
		out = append(out, d)
	}
	return out
}

func repositoryOf(key string) string {
	if i := strings.LastIndex(key, ":"); i > strings.LastIndex(key, "/") {
		return key[:i]
	}
	return key
}

// inspectEntry is one element of `docker manifest inspect -v`.
type inspectEntry struct {
	Ref        string
	Descriptor *v1.Descriptor
}

// readJSON reads the JSON forms: `docker manifest inspect -v` (an array
// for an index, one object for a single image), an index (`crane
// manifest`, `docker manifest inspect`) or an image config (`crane
// config`).
func readJSON(b []byte, ref string) ([]Fact, error) {
	if b[0] == '[' {
		var list []inspectEntry
		if err := json.Unmarshal(b, &list); err != nil {
			return nil, fmt.Errorf("not an image: reading it as `docker manifest inspect -v` output: %w", err)
		}
		return inspectFact(list, ref, true)
	}
	var probe struct {
		Ref          string
		Descriptor   *v1.Descriptor
		Manifests    *json.RawMessage `json:"manifests"`
		Layers       *json.RawMessage `json:"layers"`
		OS           string           `json:"os"`
		Architecture string           `json:"architecture"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("not an image: %w", err)
	}
	switch {
	case probe.Descriptor != nil:
		return inspectFact([]inspectEntry{{Ref: probe.Ref, Descriptor: probe.Descriptor}}, ref, false)
	case probe.Manifests != nil:
		idx, err := v1.ParseIndexManifest(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("not an image index: %w", err)
		}
		f := Fact{Index: true}
		for _, e := range idx.Manifests {
			if p, _, ok := indexEntry(blobs{blob: noBlobs}, e); ok {
				f.Platforms = append(f.Platforms, p)
			}
		}
		if len(f.Platforms) == 0 {
			return nil, errors.New("the index has no entry with a platform")
		}
		return nameOne(f, ref)
	case probe.Layers != nil:
		return nil, errors.New("a single image's manifest does not say its platform; import its config instead (`crane config REF`, or `docker manifest inspect -v REF`)")
	case probe.OS != "" || probe.Architecture != "":
		f, err := configFact(b)
		if err != nil {
			return nil, err
		}
		return nameOne(f, ref)
	}
	return nil, errors.New("not an image: JSON that is neither an image index, an image config nor `docker manifest inspect -v` output")
}

func noBlobs(h v1.Hash) ([]byte, error) { return nil, fmt.Errorf("blob %s is not in the file", h) }

// inspectFact reads `docker manifest inspect -v`: each element's Ref
// names the image (with the entry's digest) and its descriptor the
// platform.
func inspectFact(list []inspectEntry, ref string, index bool) ([]Fact, error) {
	f := Fact{Index: index}
	own := ""
	for i, e := range list {
		if e.Descriptor == nil || e.Descriptor.Platform == nil {
			return nil, fmt.Errorf("[%d]: no Descriptor.platform; is this `docker manifest inspect -v` output?", i)
		}
		if e.Descriptor.Platform.OS == "unknown" {
			continue
		}
		f.Platforms = append(f.Platforms, platformOf(*e.Descriptor.Platform))
		if own == "" {
			// The entry's Ref pins the entry's digest, not the index's.
			own, _, _ = strings.Cut(e.Ref, "@")
		}
	}
	if own != "" {
		ref = own
	}
	if !index && len(list) == 1 {
		f.Digest = list[0].Descriptor.Digest.String()
	}
	if len(f.Platforms) == 0 {
		return nil, errors.New("not an image: no entry with a platform")
	}
	return nameOne(f, ref)
}

func nameOne(f Fact, ref string) ([]Fact, error) {
	if ref == "" {
		return nil, errors.New("the JSON names no image; give its name with --ref")
	}
	f.Ref = ref
	return named([]Fact{f})
}
