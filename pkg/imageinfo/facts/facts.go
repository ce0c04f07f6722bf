// Package facts keeps what is known about images beyond the built-in
// catalog, in a data dir: the facts a user imported (`winkube image
// import`, the cluster config's images section) and the answers
// registries gave, so that an offline machine answers as it did online.
// Every command that looks images up (the node agents, lint, the webhook,
// doctor, `winkube image`) reads the same files through Resolver, so they
// agree on an image whatever its source (rule IMG-3).
package facts

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/imageinfo"
)

// Files of a data dir's images directory.
const (
	// Dir is the directory under a data dir.
	Dir = datadir.ImagesDir
	// ImportedFile holds the facts users gave.
	ImportedFile = "imported.json"
	// CacheFile holds registry answers.
	CacheFile = "registry.json"
)

// ImportedPath is the imported facts' file of a data dir.
func ImportedPath(dataDir string) string { return filepath.Join(dataDir, Dir, ImportedFile) }

// CachePath is the registry answers' file of a data dir.
func CachePath(dataDir string) string { return filepath.Join(dataDir, Dir, CacheFile) }

// Platform is an OCI platform, in the OCI image index's JSON names.
type Platform struct {
	OS           string   `json:"os"`
	Architecture string   `json:"architecture"`
	Variant      string   `json:"variant,omitempty"`
	OSVersion    string   `json:"os.version,omitempty"`
	OSFeatures   []string `json:"os.features,omitempty"`
}

// Fact is what is known about one image reference.
type Fact struct {
	// Ref is the normalised reference the fact is filed under
	// (docker.io/library/nginx:1.27, or repository@digest).
	Ref string `json:"ref"`
	// Digest is the manifest's digest, when known.
	Digest string `json:"digest,omitempty"`
	// Index is true for an image index (manifest list), false for a
	// single image (IMG-4: containerd matches only an index's entries).
	Index     bool       `json:"index"`
	Platforms []Platform `json:"platforms"`
	// Entrypoint, Cmd, Env and User are the image config's, when the
	// source had the config.
	Entrypoint []string `json:"entrypoint,omitempty"`
	Cmd        []string `json:"cmd,omitempty"`
	Env        []string `json:"env,omitempty"`
	User       string   `json:"user,omitempty"`
	// From is where the fact came from: the imported file, the cluster
	// config, or the registry host asked.
	From string `json:"from"`
	// Time is when the fact was recorded.
	Time time.Time `json:"time"`
}

// Key is the normalised reference a fact of ref is filed under: the
// digest when ref pins one, else the tag.
func Key(ref string) string {
	// Parsing alone: a pull's look-up should not pay for a catalog
	// look-up here as well.
	repo := imageinfo.Repository(ref)
	if _, digest, ok := strings.Cut(strings.TrimSpace(ref), "@"); ok && digest != "" {
		return repo + "@" + digest
	}
	return repo + ":" + imageinfo.Tag(ref)
}

// Image is the fact as imageinfo reads it, for the reference asked.
func (f Fact) Image(ref string) imageinfo.Image {
	img := imageinfo.Lookup(ref)
	img.Platforms = make([]imageinfo.Platform, 0, len(f.Platforms))
	for _, p := range f.Platforms {
		img.Platforms = append(img.Platforms, imageinfo.Platform{OS: p.OS, Architecture: p.Architecture,
			OSVersion: p.OSVersion, OSFeatures: append([]string(nil), p.OSFeatures...)})
		if len(p.OSFeatures) == 0 {
			img.Platforms[len(img.Platforms)-1].OSFeatures = nil
		}
	}
	img.Index, img.Known, img.Cataloged = f.Index, true, true
	// The user said the image exists; a catalog guess that it does not
	// (a tag the catalog has not seen) yields to that.
	img.Missing = nil
	if f.Entrypoint != nil || f.Cmd != nil || f.Env != nil || f.User != "" {
		img.Config = &imageinfo.Config{Entrypoint: f.Entrypoint, Cmd: f.Cmd, Env: f.Env, User: f.User}
	}
	return img
}

// file is the JSON of a facts file.
type file struct {
	Images []Fact `json:"images"`
}

// Store is one facts file. It reads the file again when it changed
// (another command imported, or a node agent kept a registry answer), so
// a running cluster sees facts imported after it started. It is safe for
// concurrent use within a process; between processes the last write
// wins, which loses at most answers another process will ask for again.
type Store struct {
	path  string
	mu    sync.Mutex
	facts map[string]Fact
	// seen is the file's modification time and size when last read.
	seen fileStamp
}

type fileStamp struct {
	mod  time.Time
	size int64
}

// Open reads the facts file at path; a missing file is an empty store.
func Open(path string) (*Store, error) {
	s := &Store{path: path, facts: map[string]Fact{}}
	if err := s.refresh(); err != nil {
		return nil, err
	}
	return s, nil
}

// refresh reads the file again when its stamp changed. A missing file
// leaves the facts as they are: nobody removes it but by hand.
func (s *Store) refresh() error {
	st, err := os.Stat(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading image facts: %w", err)
	}
	stamp := fileStamp{mod: st.ModTime(), size: st.Size()}
	if stamp == s.seen {
		return nil
	}
	b, err := os.ReadFile(s.path)
	if err != nil {
		return fmt.Errorf("reading image facts: %w", err)
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("reading image facts %s: %w (delete the file to start afresh)", s.path, err)
	}
	s.facts = make(map[string]Fact, len(f.Images))
	for _, fact := range f.Images {
		s.facts[fact.Ref] = fact
	}
	s.seen = stamp
	return nil
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// Get is the fact filed for ref.
func (s *Store) Get(ref string) (Fact, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// A file that went bad since it was read leaves the facts read
	// before; Put reports it.
	_ = s.refresh()
	f, ok := s.facts[Key(ref)]
	return f, ok
}

// All are the facts, sorted by reference.
func (s *Store) All() []Fact {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refresh()
	return s.sorted()
}

func (s *Store) sorted() []Fact {
	out := make([]Fact, 0, len(s.facts))
	for _, f := range s.facts {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ref < out[j].Ref })
	return out
}

// Put files the facts (replacing earlier ones of the same reference) and
// writes the file: all of them or, on error, none.
func (s *Store) Put(facts ...Fact) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// What other processes wrote since is kept.
	if err := s.refresh(); err != nil {
		return err
	}
	before := make(map[string]Fact, len(facts))
	for _, f := range facts {
		if old, ok := s.facts[f.Ref]; ok {
			before[f.Ref] = old
		}
		s.facts[f.Ref] = f
	}
	if err := s.write(); err != nil {
		for _, f := range facts {
			delete(s.facts, f.Ref)
			if old, ok := before[f.Ref]; ok {
				s.facts[f.Ref] = old
			}
		}
		return err
	}
	return nil
}

// write replaces the file atomically: a temporary file beside it, synced,
// then renamed over it, so a reader sees the old facts or the new ones.
func (s *Store) write() error {
	b, err := json.MarshalIndent(file{Images: s.sorted()}, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing image facts: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(s.path)+".*")
	if err != nil {
		return fmt.Errorf("writing image facts: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("writing image facts %s: %w", s.path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing image facts %s: %w", s.path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing image facts %s: %w", s.path, err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("writing image facts %s: %w", s.path, err)
	}
	if st, err := os.Stat(s.path); err == nil {
		s.seen = fileStamp{mod: st.ModTime(), size: st.Size()}
	}
	return nil
}
