package node

import (
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	"github.com/winkube/winkube/pkg/node/internal/program"
)

// lazyFS is a container's filesystem made at its first use: a container
// whose program never touches a file (pause, a daemon) costs none, and a
// volume's ConfigMap is read when the container first needs it.
type lazyFS struct {
	once  sync.Once
	done  atomic.Bool
	build func() program.FS
	fs    program.FS
	abs   func(dir, name string) string
}

func (l *lazyFS) get() program.FS {
	l.once.Do(func() {
		l.fs = l.build()
		l.done.Store(true)
	})
	return l.fs
}

// built reports whether the filesystem has been made.
func (l *lazyFS) built() bool { return l.done.Load() }

// Abs needs no filesystem, only the OS's path rules.
func (l *lazyFS) Abs(dir, name string) string { return l.abs(dir, name) }

func (l *lazyFS) OpenFile(name string, flag int, perm fs.FileMode) (program.File, error) {
	return l.get().OpenFile(name, flag, perm)
}
func (l *lazyFS) Stat(name string) (fs.FileInfo, error)      { return l.get().Stat(name) }
func (l *lazyFS) Lstat(name string) (fs.FileInfo, error)     { return l.get().Lstat(name) }
func (l *lazyFS) ReadDir(name string) ([]fs.DirEntry, error) { return l.get().ReadDir(name) }
func (l *lazyFS) Mkdir(name string, perm fs.FileMode) error  { return l.get().Mkdir(name, perm) }
func (l *lazyFS) MkdirAll(name string, perm fs.FileMode) error {
	return l.get().MkdirAll(name, perm)
}
func (l *lazyFS) Remove(name string) error               { return l.get().Remove(name) }
func (l *lazyFS) RemoveAll(name string) error            { return l.get().RemoveAll(name) }
func (l *lazyFS) Rename(oldname, newname string) error   { return l.get().Rename(oldname, newname) }
func (l *lazyFS) Chmod(name string, m fs.FileMode) error { return l.get().Chmod(name, m) }
func (l *lazyFS) Chtimes(name string, t time.Time) error { return l.get().Chtimes(name, t) }
func (l *lazyFS) Symlink(target, name string) error      { return l.get().Symlink(target, name) }
func (l *lazyFS) Readlink(name string) (string, error)   { return l.get().Readlink(name) }

// MountType answers agnhost mounttest's --fs_type when the built
// filesystem knows it.
func (l *lazyFS) MountType(name string) string {
	if m, ok := l.get().(interface{ MountType(string) string }); ok {
		return m.MountType(name)
	}
	return ""
}
