package agnhost

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// memFS is a minimal program.FS for tests: a flat map of clean paths.
type memFS struct {
	mu    sync.Mutex
	files map[string]*memNode
	types map[string]string // mount types by path prefix (MountType)
}

type memNode struct {
	data     []byte
	mode     fs.FileMode
	uid, gid int64
}

func newMemFS() *memFS {
	return &memFS{files: map[string]*memNode{"/": {mode: fs.ModeDir | 0o755}}}
}

// add creates name (and its parents) with data and mode.
func (m *memFS) add(name, data string, mode fs.FileMode) *memFS {
	m.mu.Lock()
	defer m.mu.Unlock()
	for d := path.Dir(name); d != "/" && d != "."; d = path.Dir(d) {
		if m.files[d] == nil {
			m.files[d] = &memNode{mode: fs.ModeDir | 0o755}
		}
	}
	m.files[name] = &memNode{data: []byte(data), mode: mode}
	return m
}

func (m *memFS) MountType(name string) string {
	for pre, typ := range m.types {
		if name == pre || strings.HasPrefix(name, pre+"/") {
			return typ
		}
	}
	return "overlay"
}

func (m *memFS) Abs(dir, name string) string {
	if !path.IsAbs(name) {
		name = path.Join(dir, name)
	}
	return path.Clean(name)
}

func pathErr(op, name string, errno syscall.Errno) error {
	return &fs.PathError{Op: op, Path: name, Err: errno}
}

func (m *memFS) OpenFile(name string, flag int, perm fs.FileMode) (program.File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.files[name]
	if n == nil {
		if flag&os.O_CREATE == 0 {
			return nil, pathErr("open", name, syscall.ENOENT)
		}
		if d := m.files[path.Dir(name)]; d == nil || !d.mode.IsDir() {
			return nil, pathErr("open", name, syscall.ENOENT)
		}
		n = &memNode{mode: perm &^ 0o022}
		m.files[name] = n
	}
	if n.mode.IsDir() && flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		return nil, pathErr("open", name, syscall.EISDIR)
	}
	if flag&os.O_TRUNC != 0 {
		n.data = nil
	}
	return &memFile{fs: m, name: name, n: n, r: bytes.NewReader(n.data)}, nil
}

func (m *memFS) Stat(name string) (fs.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.files[name]
	if n == nil {
		return nil, pathErr("stat", name, syscall.ENOENT)
	}
	return memInfo{name: path.Base(name), n: *n}, nil
}

func (m *memFS) Lstat(name string) (fs.FileInfo, error) { return m.Stat(name) }

func (m *memFS) ReadDir(name string) ([]fs.DirEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []fs.DirEntry
	for p, n := range m.files {
		if p != "/" && path.Dir(p) == name {
			out = append(out, fs.FileInfoToDirEntry(memInfo{name: path.Base(p), n: *n}))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

func (m *memFS) Mkdir(name string, perm fs.FileMode) error {
	m.add(name, "", fs.ModeDir|perm)
	return nil
}
func (m *memFS) MkdirAll(name string, perm fs.FileMode) error { return m.Mkdir(name, perm) }
func (m *memFS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.files, name)
	return nil
}
func (m *memFS) RemoveAll(name string) error            { return m.Remove(name) }
func (m *memFS) Rename(oldname, newname string) error   { return syscall.EXDEV }
func (m *memFS) Chtimes(name string, _ time.Time) error { return nil }
func (m *memFS) Symlink(target, name string) error      { return syscall.EPERM }
func (m *memFS) Readlink(name string) (string, error)   { return "", syscall.EINVAL }

func (m *memFS) Chmod(name string, mode fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.files[name]
	if n == nil {
		return pathErr("chmod", name, syscall.ENOENT)
	}
	n.mode = n.mode&fs.ModeType | mode
	return nil
}

type memInfo struct {
	name string
	n    memNode
}

func (i memInfo) Name() string            { return i.name }
func (i memInfo) Size() int64             { return int64(len(i.n.data)) }
func (i memInfo) Mode() fs.FileMode       { return i.n.mode }
func (i memInfo) ModTime() time.Time      { return time.Time{} }
func (i memInfo) IsDir() bool             { return i.n.mode.IsDir() }
func (i memInfo) Sys() any                { return i }
func (i memInfo) Owner() (uid, gid int64) { return i.n.uid, i.n.gid }

type memFile struct {
	fs   *memFS
	name string
	n    *memNode
	r    *bytes.Reader
}

func (f *memFile) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *memFile) Seek(off int64, whence int) (int64, error) {
	return f.r.Seek(off, whence)
}
func (f *memFile) Write(b []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	f.n.data = append(f.n.data, b...)
	return len(b), nil
}
func (f *memFile) Close() error { return nil }
func (f *memFile) Stat() (fs.FileInfo, error) {
	return f.fs.Stat(f.name)
}

var _ io.Seeker = (*memFile)(nil)
