package datadir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Entry is a cluster found under Root.
type Entry struct {
	Name string
	Dir  string // the data dir, symlinks resolved
}

// List finds the clusters under Root: its directories and links to
// directories that are winkube data dirs, sorted by name. A missing Root
// is no clusters.
func List() ([]Entry, error) {
	root, err := Root()
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing clusters in %s: %w", root, err)
	}
	var out []Entry
	for _, e := range entries {
		name := nameOfEntry(e.Name())
		if name != DefaultName && CheckName(name) != nil {
			continue
		}
		if dir, ok := dataDirAt(filepath.Join(root, e.Name())); ok {
			out = append(out, Entry{Name: name, Dir: dir})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
