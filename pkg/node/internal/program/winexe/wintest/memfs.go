// Package wintest has what the Windows programs' tests share: an
// in-memory program.FS with Windows paths, a clock that moves when it is
// waited on, and a stub network. It is for tests only.
package wintest

import (
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/winkube/winkube/pkg/node/internal/program"
)

// FS is a map-based program.FS with C:\ paths matched without case.
type FS struct {
	mu    sync.Mutex
	files map[string]*entry
	Clock program.Clock
}

type entry struct {
	path  string
	dir   bool
	data  []byte
	mtime time.Time
}

// NewFS is an FS with an empty C:\.
func NewFS(c program.Clock) *FS {
	f := &FS{files: map[string]*entry{}, Clock: c}
	f.files[`c:\`] = &entry{path: `C:\`, dir: true, mtime: c.Now()}
	return f
}

// Abs joins name to dir and cleans it.
func (f *FS) Abs(dir, name string) string {
	name = strings.ReplaceAll(name, "/", `\`)
	switch {
	case len(name) >= 2 && name[1] == ':' && (len(name) == 2 || name[2] != '\\'):
		name = dir + `\` + name[2:]
	case len(name) >= 3 && name[1] == ':':
	case strings.HasPrefix(name, `\`):
		name = `C:` + name
	default:
		name = dir + `\` + name
	}
	var parts []string
	for _, p := range strings.Split(name[2:], `\`) {
		switch p {
		case "", ".":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			parts = append(parts, p)
		}
	}
	return strings.ToUpper(name[:1]) + `:\` + strings.Join(parts, `\`)
}

func key(p string) string { return strings.ToLower(p) }

func parent(p string) string {
	i := strings.LastIndex(p, `\`)
	if i <= 2 {
		return p[:3]
	}
	return p[:i]
}

func perr(op, name string, err error) error { return &fs.PathError{Op: op, Path: name, Err: err} }

// Put writes a file, making its directories.
func (f *FS) Put(name, data string) {
	name = f.Abs(`C:\`, name)
	f.MkdirAll(parent(name), 0o755)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[key(name)] = &entry{path: name, data: []byte(data), mtime: f.Clock.Now()}
}

// Get is a file's content and whether it exists.
func (f *FS) Get(name string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.files[key(f.Abs(`C:\`, name))]
	if !ok || e.dir {
		return "", false
	}
	return string(e.data), true
}

func (f *FS) OpenFile(name string, flag int, perm fs.FileMode) (program.File, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.files[key(name)]
	switch {
	case !ok && flag&os.O_CREATE == 0:
		return nil, perr("open", name, syscall.ENOENT)
	case !ok:
		p, ok := f.files[key(parent(name))]
		if !ok || !p.dir {
			return nil, perr("open", name, syscall.ENOENT)
		}
		e = &entry{path: name, mtime: f.Clock.Now()}
		f.files[key(name)] = e
	case flag&os.O_EXCL != 0:
		return nil, perr("open", name, syscall.EEXIST)
	case e.dir && flag&(os.O_WRONLY|os.O_RDWR) != 0:
		return nil, perr("open", name, syscall.EISDIR)
	}
	if flag&os.O_TRUNC != 0 {
		e.data = nil
	}
	h := &file{fs: f, e: e}
	if flag&os.O_APPEND != 0 {
		h.off = int64(len(e.data))
	}
	return h, nil
}

type file struct {
	fs  *FS
	e   *entry
	off int64
}

func (h *file) Read(b []byte) (int, error) {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if h.e.dir {
		return 0, perr("read", h.e.path, syscall.EISDIR)
	}
	if h.off >= int64(len(h.e.data)) {
		return 0, io.EOF
	}
	n := copy(b, h.e.data[h.off:])
	h.off += int64(n)
	return n, nil
}

func (h *file) Write(b []byte) (int, error) {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	end := h.off + int64(len(b))
	if end > int64(len(h.e.data)) {
		h.e.data = append(h.e.data, make([]byte, end-int64(len(h.e.data)))...)
	}
	copy(h.e.data[h.off:], b)
	h.off = end
	h.e.mtime = h.fs.Clock.Now()
	return len(b), nil
}

func (h *file) Seek(off int64, whence int) (int64, error) {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	switch whence {
	case io.SeekCurrent:
		off += h.off
	case io.SeekEnd:
		off += int64(len(h.e.data))
	}
	h.off = off
	return off, nil
}

func (h *file) Close() error { return nil }

func (h *file) Stat() (fs.FileInfo, error) {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	return h.e.info(), nil
}

type info struct {
	name  string
	size  int64
	dir   bool
	mtime time.Time
}

func (e *entry) info() info {
	n := e.path[strings.LastIndex(e.path, `\`)+1:]
	if len(e.path) == 3 {
		n = e.path
	}
	return info{name: n, size: int64(len(e.data)), dir: e.dir, mtime: e.mtime}
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return i.size }
func (i info) ModTime() time.Time { return i.mtime }
func (i info) IsDir() bool        { return i.dir }
func (i info) Sys() any           { return nil }
func (i info) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (i info) Type() fs.FileMode          { return i.Mode().Type() }
func (i info) Info() (fs.FileInfo, error) { return i, nil }

func (f *FS) Stat(name string) (fs.FileInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.files[key(name)]
	if !ok {
		return nil, perr("stat", name, syscall.ENOENT)
	}
	return e.info(), nil
}

func (f *FS) Lstat(name string) (fs.FileInfo, error) { return f.Stat(name) }

func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.files[key(name)]
	if !ok {
		return nil, perr("open", name, syscall.ENOENT)
	}
	if !d.dir {
		return nil, perr("readdir", name, syscall.ENOTDIR)
	}
	var out []fs.DirEntry
	for k, e := range f.files {
		if len(k) > 3 && parent(k) == key(d.path) {
			out = append(out, e.info())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

func (f *FS) Mkdir(name string, perm fs.FileMode) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.files[key(name)]; ok {
		return perr("mkdir", name, syscall.EEXIST)
	}
	if p, ok := f.files[key(parent(name))]; !ok || !p.dir {
		return perr("mkdir", name, syscall.ENOENT)
	}
	f.files[key(name)] = &entry{path: name, dir: true, mtime: f.Clock.Now()}
	return nil
}

func (f *FS) MkdirAll(name string, perm fs.FileMode) error {
	if len(name) <= 3 {
		return nil
	}
	if fi, err := f.Stat(name); err == nil {
		if fi.IsDir() {
			return nil
		}
		return perr("mkdir", name, syscall.ENOTDIR)
	}
	if err := f.MkdirAll(parent(name), perm); err != nil {
		return err
	}
	return f.Mkdir(name, perm)
}

func (f *FS) Remove(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.files[key(name)]
	if !ok {
		return perr("remove", name, syscall.ENOENT)
	}
	if e.dir {
		for k := range f.files {
			if len(k) > 3 && parent(k) == key(name) {
				return perr("remove", name, syscall.ENOTEMPTY)
			}
		}
	}
	delete(f.files, key(name))
	return nil
}

func (f *FS) RemoveAll(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := key(name)
	for p := range f.files {
		if p == k || strings.HasPrefix(p, k+`\`) {
			delete(f.files, p)
		}
	}
	return nil
}

func (f *FS) Rename(oldname, newname string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	ok, nk := key(oldname), key(newname)
	if _, found := f.files[ok]; !found {
		return perr("rename", oldname, syscall.ENOENT)
	}
	for p, e := range f.files {
		if p == ok || strings.HasPrefix(p, ok+`\`) {
			delete(f.files, p)
			e.path = newname + e.path[len(oldname):]
			f.files[nk+p[len(ok):]] = e
		}
	}
	return nil
}

func (f *FS) Chmod(string, fs.FileMode) error { return nil }

func (f *FS) Chtimes(name string, mtime time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.files[key(name)]; ok {
		e.mtime = mtime
		return nil
	}
	return perr("chtimes", name, syscall.ENOENT)
}

func (f *FS) Symlink(string, string) error { return syscall.EPERM }

func (f *FS) Readlink(name string) (string, error) { return "", perr("readlink", name, syscall.EINVAL) }
