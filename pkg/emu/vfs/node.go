package vfs

import (
	"io/fs"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// tree is one layer of storage: a container's own root layer or a
// volume. Its lock guards every inode in it (names, data, attributes);
// an operation locks the one tree it changes, so containers sharing a
// volume serialize on that volume only.
type tree struct {
	mu    sync.RWMutex
	used  int64 // bytes of file data held
	limit int64 // 0: unlimited
	// fsType is the file system type statfs reports for the tree's
	// files (Tmpfs); "" is the type of the disk the node keeps it on.
	fsType string
}

// kind is what an inode is; it never changes after creation, so it may be
// read without the tree's lock.
type kind uint8

const (
	kindDir kind = iota
	kindFile
	kindSymlink
	kindDevice
)

var lastIno atomic.Uint64

// inode is a file, directory, symlink or device. There are no hard links:
// every inode has one parent and one name (a tree's root has neither).
type inode struct {
	tree   *tree
	kind   kind
	target string // symlink target (immutable)
	device string // device kind (immutable)
	ino    uint64

	// Guarded by tree.mu.
	name     string
	parent   *inode
	children map[string]*inode
	data     []byte
	perm     fs.FileMode // permission, setuid, setgid and sticky bits
	uid, gid int64
	mtime    time.Time
	unlinked bool
}

func newInode(t *tree, k kind, perm fs.FileMode, uid, gid int64, now time.Time) *inode {
	n := &inode{tree: t, kind: k, perm: perm & modeBits, uid: uid, gid: gid, mtime: now, ino: lastIno.Add(1)}
	if k == kindDir {
		n.children = map[string]*inode{}
	}
	return n
}

// modeBits are the bits of a mode Chmod may set.
const modeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// child finds a name in a directory; fold matches without case (Windows).
// The caller holds the tree's lock.
func (n *inode) child(name string, fold bool) *inode {
	if c, ok := n.children[name]; ok {
		return c
	}
	if fold {
		for k, c := range n.children {
			if strings.EqualFold(k, name) {
				return c
			}
		}
	}
	return nil
}

// link adds c to directory n under name. The caller holds the lock.
func (n *inode) link(name string, c *inode) {
	c.name, c.parent = name, n
	n.children[name] = c
}

// unlink removes c from its parent and releases its data when it was the
// last name of it. The caller holds the lock.
func (c *inode) unlink() {
	delete(c.parent.children, c.name)
	c.parent = nil
	c.unlinked = true
	c.tree.used -= int64(len(c.data))
}

// isAncestorOf reports whether n is d or above d. The caller holds the lock.
func (n *inode) isAncestorOf(d *inode) bool {
	for ; d != nil; d = d.parent {
		if d == n {
			return true
		}
	}
	return false
}

// mode is the full fs.FileMode. The caller holds the lock.
func (n *inode) mode() fs.FileMode {
	switch n.kind {
	case kindDir:
		return fs.ModeDir | n.perm
	case kindSymlink:
		return fs.ModeSymlink | n.perm
	case kindDevice:
		return fs.ModeDevice | fs.ModeCharDevice | n.perm
	}
	return n.perm
}

// info snapshots n as an fs.FileInfo named name. The caller holds the lock.
func (n *inode) info(name string) *fileInfo {
	fi := &fileInfo{name: name, mode: n.mode(), mtime: n.mtime,
		sys: owner{uid: n.uid, gid: n.gid, ino: n.ino, nlink: 1}}
	switch n.kind {
	case kindFile:
		fi.size = int64(len(n.data))
	case kindSymlink:
		fi.size = int64(len(n.target))
	case kindDir:
		fi.size = 4096
		fi.sys.nlink = 2
		for _, c := range n.children {
			if c.kind == kindDir {
				fi.sys.nlink++
			}
		}
	}
	return fi
}

// sortedChildren lists a directory by name. The caller holds the lock.
func (n *inode) sortedChildren() []*inode {
	list := make([]*inode, 0, len(n.children))
	for _, c := range n.children {
		list = append(list, c)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].name < list[j].name })
	return list
}

// fileInfo is a snapshot of an inode.
type fileInfo struct {
	name  string
	size  int64
	mode  fs.FileMode
	mtime time.Time
	sys   owner
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.size }
func (fi *fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi *fileInfo) ModTime() time.Time { return fi.mtime }
func (fi *fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi *fileInfo) Sys() any           { return fi.sys }

// owner is FileInfo.Sys(): it implements program.FileOwner, and gives the
// inode number and link count that ls -i and ls -l print.
type owner struct {
	uid, gid int64
	ino      uint64
	nlink    uint64
}

func (o owner) Owner() (uid, gid int64) { return o.uid, o.gid }

// Ino is the inode number.
func (o owner) Ino() uint64 { return o.ino }

// Nlink is the link count (2 plus subdirectories for a directory).
func (o owner) Nlink() uint64 { return o.nlink }

// dirEntry is a ReadDir result.
type dirEntry struct{ fi *fileInfo }

func (d dirEntry) Name() string               { return d.fi.name }
func (d dirEntry) IsDir() bool                { return d.fi.IsDir() }
func (d dirEntry) Type() fs.FileMode          { return d.fi.mode.Type() }
func (d dirEntry) Info() (fs.FileInfo, error) { return d.fi, nil }
