package vfs

import (
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// Lazy is a container's filesystem made at its first use: a container
// whose program never touches a file (pause, a daemon) costs none, and a
// volume's ConfigMap is read when the container first needs it. One that
// was only read can be let go (drop) and is made again the same at the
// next use: a web server reads its configuration once at start, and
// 10,000 of them need not keep their trees for that.
type Lazy struct {
	build func() program.FS
	abs   func(dir, name string) string

	mu sync.Mutex
	fs program.FS // nil until made, and again once dropped
	// written: something may have changed the tree (a write, or a file
	// opened for writing), so it cannot be made again and is kept.
	written bool
}

// NewLazy is the filesystem build makes at the first use; abs resolves
// names by the OS's path rules without it.
func NewLazy(build func() program.FS, abs func(dir, name string) string) *Lazy {
	return &Lazy{build: build, abs: abs}
}

func (l *Lazy) get() program.FS {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fs == nil {
		l.fs = l.build()
	}
	return l.fs
}

// change is get for an operation that may change the tree.
func (l *Lazy) change() program.FS {
	l.mu.Lock()
	l.written = true
	l.mu.Unlock()
	return l.get()
}

// Written reports whether something may have changed the tree: its
// writable layer is then the container's own and worth keeping.
func (l *Lazy) Written() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.written
}

// Keep marks the tree as written before it is made: one restored from a
// saved layer cannot be made again from the image alone.
func (l *Lazy) Keep() {
	l.mu.Lock()
	l.written = true
	l.mu.Unlock()
}

// Built reports whether the filesystem is made (and not dropped).
func (l *Lazy) Built() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fs != nil
}

// Current is the filesystem as made now, nil when it is not made (or
// was dropped): what a caller may update in place without making it.
func (l *Lazy) Current() program.FS {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fs
}

// Drop lets go of a tree nothing has written to and reports whether it
// did; the next use makes it again. Files open for reading keep the tree
// they were opened in.
func (l *Lazy) Drop() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.written || l.fs == nil {
		return false
	}
	l.fs = nil
	return true
}

// Abs needs no filesystem, only the OS's path rules.
func (l *Lazy) Abs(dir, name string) string { return l.abs(dir, name) }

const writeFlags = os.O_WRONLY | os.O_RDWR | os.O_CREATE | os.O_TRUNC | os.O_APPEND

func (l *Lazy) OpenFile(name string, flag int, perm fs.FileMode) (program.File, error) {
	if flag&writeFlags != 0 {
		return l.change().OpenFile(name, flag, perm)
	}
	return l.get().OpenFile(name, flag, perm)
}
func (l *Lazy) Stat(name string) (fs.FileInfo, error)      { return l.get().Stat(name) }
func (l *Lazy) Lstat(name string) (fs.FileInfo, error)     { return l.get().Lstat(name) }
func (l *Lazy) ReadDir(name string) ([]fs.DirEntry, error) { return l.get().ReadDir(name) }
func (l *Lazy) Readlink(name string) (string, error)       { return l.get().Readlink(name) }
func (l *Lazy) Mkdir(name string, perm fs.FileMode) error  { return l.change().Mkdir(name, perm) }
func (l *Lazy) MkdirAll(name string, perm fs.FileMode) error {
	return l.change().MkdirAll(name, perm)
}
func (l *Lazy) Remove(name string) error               { return l.change().Remove(name) }
func (l *Lazy) RemoveAll(name string) error            { return l.change().RemoveAll(name) }
func (l *Lazy) Rename(oldname, newname string) error   { return l.change().Rename(oldname, newname) }
func (l *Lazy) Chmod(name string, m fs.FileMode) error { return l.change().Chmod(name, m) }
func (l *Lazy) Chtimes(name string, t time.Time) error { return l.change().Chtimes(name, t) }
func (l *Lazy) Symlink(target, name string) error      { return l.change().Symlink(target, name) }

// MountType answers agnhost mounttest's --fs_type when the built
// filesystem knows it.
func (l *Lazy) MountType(name string) string {
	if m, ok := l.get().(interface{ MountType(string) string }); ok {
		return m.MountType(name)
	}
	return ""
}
