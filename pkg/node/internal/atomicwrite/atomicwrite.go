// Package atomicwrite lays out and updates the files of a configMap,
// secret, downwardAPI or projected volume as the kubelet's atomic writer
// does (pkg/volume/util/atomic_writer.go): the files in a timestamped
// directory, ..data pointing at it, and a symlink per top-level name
// through ..data. An update writes a new timestamped directory, swaps
// ..data to it in one step, adds and removes the top-level symlinks and
// removes the old directory, so a program that reads through a top-level
// name sees the old content or the new, never a mix.
package atomicwrite

import (
	"bytes"
	"path"
	"slices"

	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/node/internal/kubeletenv"
)

// dataDir and newDataDir are the writer's names (dataDirName,
// newDataDirName upstream).
const (
	dataDir    = "..data"
	newDataDir = "..data_tmp"
)

// Write lays files out in an empty volume.
func Write(v *vfs.Volume, files kubeletenv.Files) {
	if files.RootMode != 0 {
		_ = v.Chmod("", files.RootMode)
	}
	writeDir(v, files)
	_ = v.Symlink(files.TimestampDir, dataDir)
	for _, top := range files.Top {
		_ = v.Symlink(path.Join(dataDir, top), top)
	}
	if files.GID != nil {
		chownTree(v, *files.GID)
	}
}

// Update replaces the volume's content, written from old, with files
// when they differ, as the writer's Write does on every pod sync: it
// reports whether anything changed. windows: the Windows kubelet removes
// ..data and makes it again instead of renaming over it (a directory
// symlink cannot be replaced by a rename there).
func Update(v *vfs.Volume, old, files kubeletenv.Files, windows bool) bool {
	if Same(old, files) {
		return false
	}
	writeDir(v, files)
	_ = v.Symlink(files.TimestampDir, newDataDir)
	if windows {
		_ = v.Remove(dataDir)
	}
	_ = v.Rename(newDataDir, dataDir)
	for _, top := range files.Top {
		if !slices.Contains(old.Top, top) {
			_ = v.Symlink(path.Join(dataDir, top), top)
		}
	}
	for _, top := range old.Top {
		if !slices.Contains(files.Top, top) {
			_ = v.Remove(top)
		}
	}
	if files.GID != nil {
		chownTree(v, *files.GID)
	}
	if old.TimestampDir != "" && old.TimestampDir != files.TimestampDir {
		_ = v.Remove(old.TimestampDir)
	}
	return true
}

// Same reports whether two payloads would leave the same files: the
// writer's shouldWritePayload compares content and mode (and here the
// owner the kubelet gives a file).
func Same(a, b kubeletenv.Files) bool {
	if len(a.Entries) != len(b.Entries) || !sameID(a.GID, b.GID) || a.DirMode != b.DirMode {
		return false
	}
	for i, e := range a.Entries {
		f := b.Entries[i]
		if e.Path != f.Path || e.Mode != f.Mode || !bytes.Equal(e.Data, f.Data) || !sameID(e.UID, f.UID) {
			return false
		}
	}
	return true
}

func sameID(a, b *int64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// writeDir writes the timestamped directory and the files in it.
func writeDir(v *vfs.Volume, files kubeletenv.Files) {
	_ = v.MkdirAll(files.TimestampDir, files.DirMode)
	for _, f := range files.Entries {
		rel := path.Join(files.TimestampDir, f.Path)
		if dir := path.Dir(rel); dir != files.TimestampDir {
			_ = v.MkdirAll(dir, files.DirMode)
		}
		_ = v.WriteFile(rel, f.Data, f.Mode)
		if f.UID != nil {
			_ = v.Chown(rel, *f.UID, gidOr(files.GID, 0))
		}
	}
}

func gidOr(p *int64, def int64) int64 {
	if p == nil {
		return def
	}
	return *p
}

// chownTree gives every entry of the volume the fsGroup.
func chownTree(v *vfs.Volume, gid int64) {
	var walk func(rel string)
	walk = func(rel string) {
		_ = v.Chown(rel, 0, gid)
		entries, err := v.FS().ReadDir(v.FS().Abs("/", rel))
		if err != nil {
			return
		}
		for _, e := range entries {
			child := path.Join(rel, e.Name())
			if e.IsDir() {
				walk(child)
			} else {
				_ = v.Chown(child, 0, gid)
			}
		}
	}
	walk("")
}
