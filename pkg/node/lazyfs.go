package node

import (
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// lazyFS is a container's filesystem made at its first use: a container
// whose program never touches a file (pause, a daemon) costs none, and a
// volume's ConfigMap is read when the container first needs it. One that
// was only read can be let go (drop) and is made again the same at the
// next use: a web server reads its configuration once at start, and
// 10,000 of them need not keep their trees for that.
type lazyFS struct {
	build func() program.FS
	abs   func(dir, name string) string

	mu sync.Mutex
	fs program.FS // nil until made, and again once dropped
	// written: something may have changed the tree (a write, or a file
	// opened for writing), so it cannot be made again and is kept.
	written bool
}

func (l *lazyFS) get() program.FS {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fs == nil {
		l.fs = l.build()
	}
	return l.fs
}

// change is get for an operation that may change the tree.
func (l *lazyFS) change() program.FS {
	l.mu.Lock()
	l.written = true
	l.mu.Unlock()
	return l.get()
}

// built reports whether the filesystem is made (and not dropped).
func (l *lazyFS) built() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fs != nil
}

// drop lets go of a tree nothing has written to and reports whether it
// did; the next use makes it again. Files open for reading keep the tree
// they were opened in.
func (l *lazyFS) drop() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.written || l.fs == nil {
		return false
	}
	l.fs = nil
	return true
}

// Abs needs no filesystem, only the OS's path rules.
func (l *lazyFS) Abs(dir, name string) string { return l.abs(dir, name) }

const writeFlags = os.O_WRONLY | os.O_RDWR | os.O_CREATE | os.O_TRUNC | os.O_APPEND

func (l *lazyFS) OpenFile(name string, flag int, perm fs.FileMode) (program.File, error) {
	if flag&writeFlags != 0 {
		return l.change().OpenFile(name, flag, perm)
	}
	return l.get().OpenFile(name, flag, perm)
}
func (l *lazyFS) Stat(name string) (fs.FileInfo, error)      { return l.get().Stat(name) }
func (l *lazyFS) Lstat(name string) (fs.FileInfo, error)     { return l.get().Lstat(name) }
func (l *lazyFS) ReadDir(name string) ([]fs.DirEntry, error) { return l.get().ReadDir(name) }
func (l *lazyFS) Readlink(name string) (string, error)       { return l.get().Readlink(name) }
func (l *lazyFS) Mkdir(name string, perm fs.FileMode) error  { return l.change().Mkdir(name, perm) }
func (l *lazyFS) MkdirAll(name string, perm fs.FileMode) error {
	return l.change().MkdirAll(name, perm)
}
func (l *lazyFS) Remove(name string) error               { return l.change().Remove(name) }
func (l *lazyFS) RemoveAll(name string) error            { return l.change().RemoveAll(name) }
func (l *lazyFS) Rename(oldname, newname string) error   { return l.change().Rename(oldname, newname) }
func (l *lazyFS) Chmod(name string, m fs.FileMode) error { return l.change().Chmod(name, m) }
func (l *lazyFS) Chtimes(name string, t time.Time) error { return l.change().Chtimes(name, t) }
func (l *lazyFS) Symlink(target, name string) error      { return l.change().Symlink(target, name) }

// MountType answers agnhost mounttest's --fs_type when the built
// filesystem knows it.
func (l *lazyFS) MountType(name string) string {
	if m, ok := l.get().(interface{ MountType(string) string }); ok {
		return m.MountType(name)
	}
	return ""
}
