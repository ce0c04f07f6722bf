package vfs

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// SaveLayer writes the container's own tree, its writable layer, as a
// tar: directories, files and symlinks with their modes, owners and
// times. Mounted volumes are other trees and are not in it; devices are
// the runtime's and are made again with the filesystem.
func (f *FS) SaveLayer(w io.Writer) error {
	root := f.s.root
	root.tree.mu.RLock()
	defer root.tree.mu.RUnlock()
	tw := tar.NewWriter(w)
	if err := saveChildren(tw, root, ""); err != nil {
		return err
	}
	return tw.Close()
}

func saveChildren(tw *tar.Writer, dir *inode, prefix string) error {
	names := make([]string, 0, len(dir.children))
	for name := range dir.children {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		n := dir.children[name]
		h := &tar.Header{Name: prefix + name, Mode: int64(n.perm.Perm()), Uid: int(n.uid), Gid: int(n.gid), ModTime: n.mtime, Format: tar.FormatPAX}
		h.Mode |= int64(tarModeBits(n.perm))
		switch n.kind {
		case kindDir:
			h.Typeflag, h.Name = tar.TypeDir, h.Name+"/"
		case kindFile:
			h.Typeflag, h.Size = tar.TypeReg, int64(len(n.data))
		case kindSymlink:
			h.Typeflag, h.Linkname = tar.TypeSymlink, n.target
		default:
			continue
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if n.kind == kindFile {
			if _, err := tw.Write(n.data); err != nil {
				return err
			}
		}
		if n.kind == kindDir {
			if err := saveChildren(tw, n, h.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// tarModeBits are the setuid, setgid and sticky bits in tar's encoding.
func tarModeBits(perm fs.FileMode) int {
	bits := 0
	if perm&fs.ModeSetuid != 0 {
		bits |= 0o4000
	}
	if perm&fs.ModeSetgid != 0 {
		bits |= 0o2000
	}
	if perm&fs.ModeSticky != 0 {
		bits |= 0o1000
	}
	return bits
}

// LoadLayer puts a layer SaveLayer wrote over the tree: what it names
// replaces what the image laid out, and the rest stays. It writes the
// tree itself, under no mount, as the runtime restores a container's
// snapshot before its volumes are mounted.
func (f *FS) LoadLayer(r io.Reader) error {
	root := f.s.root
	t := root.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the saved layer: %w", err)
		}
		if err := f.loadEntry(root, h, tr); err != nil {
			return fmt.Errorf("saved layer entry %s: %w", h.Name, err)
		}
	}
}

func (f *FS) loadEntry(root *inode, h *tar.Header, r io.Reader) error {
	parts := strings.Split(strings.Trim(path.Clean("/"+h.Name), "/"), "/")
	if len(parts) == 0 || parts[0] == "" {
		return nil
	}
	t := root.tree
	dir := root
	for _, p := range parts[:len(parts)-1] {
		c := dir.child(p, f.windows)
		if c == nil {
			c = newInode(t, kindDir, 0o755, 0, 0, h.ModTime)
			dir.link(p, c)
		}
		if c.kind != kindDir {
			return errors.New("a parent is not a directory")
		}
		dir = c
	}
	name := parts[len(parts)-1]
	perm := fs.FileMode(h.Mode).Perm()
	if h.Mode&0o4000 != 0 {
		perm |= fs.ModeSetuid
	}
	if h.Mode&0o2000 != 0 {
		perm |= fs.ModeSetgid
	}
	if h.Mode&0o1000 != 0 {
		perm |= fs.ModeSticky
	}
	old := dir.child(name, f.windows)
	if old != nil && old.kind == kindDir && h.Typeflag == tar.TypeDir {
		old.perm, old.uid, old.gid, old.mtime = perm, int64(h.Uid), int64(h.Gid), h.ModTime
		return nil
	}
	var n *inode
	switch h.Typeflag {
	case tar.TypeDir:
		n = newInode(t, kindDir, perm, int64(h.Uid), int64(h.Gid), h.ModTime)
	case tar.TypeReg:
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		n = newInode(t, kindFile, perm, int64(h.Uid), int64(h.Gid), h.ModTime)
		n.data = data
		t.used += int64(len(data))
	case tar.TypeSymlink:
		n = newInode(t, kindSymlink, perm, int64(h.Uid), int64(h.Gid), h.ModTime)
		n.target = h.Linkname
	default:
		return nil
	}
	if old != nil {
		old.unlink()
	}
	dir.link(name, n)
	return nil
}
