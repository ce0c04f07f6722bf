// Package vfs is the in-memory filesystem of one emulated container: a
// root layer of its own plus volumes mounted into it, which other
// containers (of the pod, or later pods) may mount too. It implements
// program.FS and never touches the host.
package vfs

import (
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// DefaultLimit is how much file data a container's root layer holds when
// Options.Limit is 0.
const DefaultLimit = 64 << 20

// NoUmask asks for a umask of 0 (Options.Umask 0 means the default 022).
const NoUmask fs.FileMode = 1 << 31

// Options describe a container's filesystem.
type Options struct {
	// Windows selects C:\ paths and names matched without case.
	Windows bool
	// ReadOnlyRoot makes writes outside mounts fail with EROFS
	// (readOnlyRootFilesystem).
	ReadOnlyRoot bool
	// UID and GID own the files the container creates. When UID is not
	// 0 (and not Windows), permission bits are enforced with them and
	// Groups (EACCES).
	UID, GID int64
	Groups   []int64
	// Umask is cleared from the permissions of created files; 0 means
	// 022, NoUmask means none.
	Umask fs.FileMode
	// Clock stamps modification times; nil is the wall clock.
	Clock interface{ Now() time.Time }
	// Limit is the most bytes of file data the root layer holds (not
	// counting volumes); beyond it writes fail with ENOSPC. 0 is
	// DefaultLimit.
	Limit int64
}

// FS is a container's filesystem. It is safe for concurrent use.
type FS struct {
	s       *shared
	windows bool
	// priv marks the runtime's view: no read-only mounts, no
	// permission checks, files owned by root.
	priv bool
}

var _ program.FS = (*FS)(nil)

// shared is what every view of one FS has in common.
type shared struct {
	opts  Options
	umask fs.FileMode
	root  *inode

	mountMu sync.Mutex                        // serializes changes of mounts
	mounts  atomic.Pointer[map[string]*mount] // read without locks
}

// mount is a volume (or a file or directory in it) seen at a path.
type mount struct {
	key string // mount-table key of the mount point
	// root is what the mount shows; a lazy mount makes its volume at the
	// first call.
	root     func() *inode
	readOnly bool
}

// New makes an empty filesystem: a root directory (/ or C:\) owned by
// root with mode 0755. It is cheap; the node fills it in.
func New(opts Options) *FS {
	if opts.Limit == 0 {
		opts.Limit = DefaultLimit
	}
	umask := opts.Umask & fs.ModePerm
	if opts.Umask == 0 {
		umask = 0o22
	}
	s := &shared{opts: opts, umask: umask}
	t := &tree{limit: opts.Limit}
	s.root = newInode(t, kindDir, 0o755, 0, 0, s.now())
	return &FS{s: s, windows: opts.Windows}
}

// On makes a container's filesystem whose root is v's root: what the
// container writes outside its own mounts lands in v, where every other
// filesystem made on v sees it. A HostProcess container's root is its
// node's disk. Mounts stay the container's own, as a silo's bind links do.
func On(v *Volume, opts Options) *FS {
	f := New(opts)
	f.s.root = v.fs.s.root
	return f
}

// Privileged is the container runtime's view of the same filesystem: it
// writes through read-only mounts and a read-only root, skips permission
// checks and creates files owned by root with no umask. The node lays out
// the image (/etc, /dev, mount points) with it.
func (f *FS) Privileged() *FS {
	return &FS{s: f.s, windows: f.windows, priv: true}
}

// Windows reports whether the FS has Windows path syntax.
func (f *FS) Windows() bool { return f.windows }

func (s *shared) now() time.Time {
	if s.opts.Clock != nil {
		return s.opts.Clock.Now()
	}
	return time.Now()
}

// creator is the owner and umask of the files this view creates.
func (f *FS) creator() (uid, gid int64, umask fs.FileMode) {
	if f.priv {
		return 0, 0, 0
	}
	return f.s.opts.UID, f.s.opts.GID, f.s.umask
}

// readOnly reports whether writes to a layer (nil: the root layer) fail.
func (f *FS) readOnly(m *mount) bool {
	if f.priv {
		return false
	}
	if m != nil {
		return m.readOnly
	}
	return f.s.opts.ReadOnlyRoot
}

// enforced reports whether permission bits apply to this view.
func (f *FS) enforced() bool {
	return !f.priv && !f.windows && f.s.opts.UID != 0
}

// may reports whether the process may access n as want (4 read, 2 write,
// 1 search/execute). The caller holds n's tree lock.
func (f *FS) may(n *inode, want fs.FileMode) bool {
	if f.windows && !f.priv {
		// Only the read-only attribute of a file counts.
		return want&2 == 0 || n.kind != kindFile || n.perm&0o200 != 0
	}
	if !f.enforced() {
		return true
	}
	perm := n.perm
	switch {
	case n.uid == f.s.opts.UID:
		perm >>= 6
	case f.inGroup(n.gid):
		perm >>= 3
	}
	return perm&want == want
}

func (f *FS) inGroup(gid int64) bool {
	if gid == f.s.opts.GID {
		return true
	}
	for _, g := range f.s.opts.Groups {
		if g == gid {
			return true
		}
	}
	return false
}

// owns reports whether the process may change n's attributes. The caller
// holds n's tree lock.
func (f *FS) owns(n *inode) bool {
	return !f.enforced() || n.uid == f.s.opts.UID
}

// mountTable is the current mounts by key.
func (f *FS) mountTable() map[string]*mount {
	if m := f.s.mounts.Load(); m != nil {
		return *m
	}
	return nil
}
