package sh

// A small in-memory program.FS for tests, until pkg/node/internal/vfs is
// ready: files, directories, symlinks and /dev/null.

import (
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/winkube/winkube/pkg/node/internal/program"
)

type memNode struct {
	mode     fs.FileMode
	data     []byte
	target   string
	mtime    time.Time
	uid, gid int64
	null     bool
}

type memFS struct {
	mu    sync.Mutex
	nodes map[string]*memNode
	now   func() time.Time
}

func newMemFS(now func() time.Time) *memFS {
	m := &memFS{nodes: map[string]*memNode{}, now: now}
	t := now()
	for _, d := range []string{"/", "/dev", "/tmp", "/etc", "/bin"} {
		m.nodes[d] = &memNode{mode: fs.ModeDir | 0o755, mtime: t}
	}
	m.nodes["/tmp"].mode = fs.ModeDir | fs.ModeSticky | 0o777
	m.nodes["/dev/null"] = &memNode{mode: fs.ModeDevice | fs.ModeCharDevice | 0o666, mtime: t, null: true}
	return m
}

func (m *memFS) put(name, data string, perm fs.FileMode) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nodes[name] = &memNode{mode: perm, data: []byte(data), mtime: m.now()}
}

func perr(op, name string, e syscall.Errno) error { return &fs.PathError{Op: op, Path: name, Err: e} }

func (m *memFS) Abs(dir, name string) string {
	if strings.HasPrefix(name, "/") {
		return path.Clean(name)
	}
	return path.Clean("/" + dir + "/" + name)
}

// resolve follows symlinks in every component (and the last one when
// follow is set); m.mu is held.
func (m *memFS) resolve(name string, follow bool) (string, error) {
	for hops := 0; hops < 40; hops++ {
		parts := strings.Split(strings.Trim(path.Clean(name), "/"), "/")
		cur := "/"
		changed := false
		for i, part := range parts {
			if part == "" {
				continue
			}
			next := path.Join(cur, part)
			n, ok := m.nodes[next]
			if ok && n.mode&fs.ModeSymlink != 0 && (i < len(parts)-1 || follow) {
				t := n.target
				if !strings.HasPrefix(t, "/") {
					t = path.Join(cur, t)
				}
				name = path.Join(append([]string{t}, parts[i+1:]...)...)
				changed = true
				break
			}
			if ok && i < len(parts)-1 && !n.mode.IsDir() {
				return "", syscall.ENOTDIR
			}
			if !ok && i < len(parts)-1 {
				return "", syscall.ENOENT
			}
			cur = next
		}
		if !changed {
			return cur, nil
		}
	}
	return "", syscall.ELOOP
}

type memInfo struct {
	name string
	n    memNode
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return int64(len(i.n.data)) }
func (i memInfo) Mode() fs.FileMode  { return i.n.mode }
func (i memInfo) ModTime() time.Time { return i.n.mtime }
func (i memInfo) IsDir() bool        { return i.n.mode.IsDir() }
func (i memInfo) Sys() any           { return i }
func (i memInfo) Owner() (int64, int64) {
	return i.n.uid, i.n.gid
}

func (m *memFS) stat(op, name string, follow bool) (fs.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.resolve(name, follow)
	if err != nil {
		return nil, perr(op, name, err.(syscall.Errno))
	}
	n, ok := m.nodes[p]
	if !ok {
		return nil, perr(op, name, syscall.ENOENT)
	}
	return memInfo{path.Base(p), *n}, nil
}

func (m *memFS) Stat(name string) (fs.FileInfo, error)  { return m.stat("stat", name, true) }
func (m *memFS) Lstat(name string) (fs.FileInfo, error) { return m.stat("lstat", name, false) }

func (m *memFS) ReadDir(name string) ([]fs.DirEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.resolve(name, true)
	if err != nil {
		return nil, perr("open", name, err.(syscall.Errno))
	}
	d, ok := m.nodes[p]
	if !ok {
		return nil, perr("open", name, syscall.ENOENT)
	}
	if !d.mode.IsDir() {
		return nil, perr("readdirent", name, syscall.ENOTDIR)
	}
	var out []fs.DirEntry
	for k, n := range m.nodes {
		if k != "/" && path.Dir(k) == p {
			out = append(out, fs.FileInfoToDirEntry(memInfo{path.Base(k), *n}))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

func (m *memFS) parentOK(p string) syscall.Errno {
	d, ok := m.nodes[path.Dir(p)]
	if !ok {
		return syscall.ENOENT
	}
	if !d.mode.IsDir() {
		return syscall.ENOTDIR
	}
	return 0
}

func (m *memFS) OpenFile(name string, flag int, perm fs.FileMode) (program.File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.resolve(name, true)
	if err != nil {
		return nil, perr("open", name, err.(syscall.Errno))
	}
	n, ok := m.nodes[p]
	if !ok {
		if flag&os.O_CREATE == 0 {
			return nil, perr("open", name, syscall.ENOENT)
		}
		if e := m.parentOK(p); e != 0 {
			return nil, perr("open", name, e)
		}
		n = &memNode{mode: perm & fs.ModePerm, mtime: m.now()}
		m.nodes[p] = n
	} else if flag&os.O_EXCL != 0 && flag&os.O_CREATE != 0 {
		return nil, perr("open", name, syscall.EEXIST)
	}
	if n.mode.IsDir() && flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		return nil, perr("open", name, syscall.EISDIR)
	}
	if flag&os.O_TRUNC != 0 && !n.null {
		n.data = nil
	}
	f := &memFile{fs: m, n: n, name: p, flag: flag}
	return f, nil
}

func (m *memFS) Mkdir(name string, perm fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := path.Clean(name)
	if _, ok := m.nodes[p]; ok {
		return perr("mkdir", name, syscall.EEXIST)
	}
	if e := m.parentOK(p); e != 0 {
		return perr("mkdir", name, e)
	}
	m.nodes[p] = &memNode{mode: fs.ModeDir | perm&fs.ModePerm, mtime: m.now()}
	return nil
}

func (m *memFS) MkdirAll(name string, perm fs.FileMode) error {
	p := path.Clean(name)
	if p == "/" {
		return nil
	}
	if err := m.MkdirAll(path.Dir(p), perm); err != nil {
		return err
	}
	err := m.Mkdir(p, perm)
	if err != nil {
		if fi, serr := m.Stat(p); serr == nil && fi.IsDir() {
			return nil
		}
	}
	return err
}

func (m *memFS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := path.Clean(name)
	n, ok := m.nodes[p]
	if !ok {
		return perr("remove", name, syscall.ENOENT)
	}
	if n.mode.IsDir() {
		for k := range m.nodes {
			if path.Dir(k) == p && k != "/" {
				return perr("remove", name, syscall.ENOTEMPTY)
			}
		}
	}
	delete(m.nodes, p)
	return nil
}

func (m *memFS) RemoveAll(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := path.Clean(name)
	for k := range m.nodes {
		if k == p || strings.HasPrefix(k, p+"/") {
			delete(m.nodes, k)
		}
	}
	return nil
}

func (m *memFS) Rename(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, n := path.Clean(oldname), path.Clean(newname)
	if _, ok := m.nodes[o]; !ok {
		return perr("rename", oldname, syscall.ENOENT)
	}
	if e := m.parentOK(n); e != 0 {
		return perr("rename", newname, e)
	}
	for k, v := range m.nodes {
		if k == o || strings.HasPrefix(k, o+"/") {
			delete(m.nodes, k)
			m.nodes[n+k[len(o):]] = v
		}
	}
	return nil
}

func (m *memFS) node(op, name string) (*memNode, error) {
	p, err := m.resolve(name, true)
	if err != nil {
		return nil, perr(op, name, err.(syscall.Errno))
	}
	n, ok := m.nodes[p]
	if !ok {
		return nil, perr(op, name, syscall.ENOENT)
	}
	return n, nil
}

func (m *memFS) Chmod(name string, mode fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.node("chmod", name)
	if err != nil {
		return err
	}
	n.mode = n.mode&fs.ModeType | mode&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)
	return nil
}

func (m *memFS) Chtimes(name string, mtime time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.node("chtimes", name)
	if err != nil {
		return err
	}
	n.mtime = mtime
	return nil
}

func (m *memFS) Symlink(target, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := path.Clean(name)
	if _, ok := m.nodes[p]; ok {
		return perr("symlink", name, syscall.EEXIST)
	}
	m.nodes[p] = &memNode{mode: fs.ModeSymlink | 0o777, target: target, mtime: m.now()}
	return nil
}

func (m *memFS) Readlink(name string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.nodes[path.Clean(name)]
	if !ok {
		return "", perr("readlink", name, syscall.ENOENT)
	}
	if n.mode&fs.ModeSymlink == 0 {
		return "", perr("readlink", name, syscall.EINVAL)
	}
	return n.target, nil
}

type memFile struct {
	fs   *memFS
	n    *memNode
	name string
	flag int
	off  int64
}

func (f *memFile) Read(b []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.n.mode.IsDir() {
		return 0, perr("read", f.name, syscall.EISDIR)
	}
	if f.off >= int64(len(f.n.data)) {
		return 0, io.EOF
	}
	k := copy(b, f.n.data[f.off:])
	f.off += int64(k)
	return k, nil
}

func (f *memFile) Write(b []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.n.null {
		return len(b), nil
	}
	if f.flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		return 0, perr("write", f.name, syscall.EBADF)
	}
	if f.flag&os.O_APPEND != 0 {
		f.off = int64(len(f.n.data))
	}
	for int64(len(f.n.data)) < f.off {
		f.n.data = append(f.n.data, 0)
	}
	end := f.off + int64(len(b))
	if end > int64(len(f.n.data)) {
		f.n.data = append(f.n.data[:f.off], b...)
	} else {
		copy(f.n.data[f.off:], b)
	}
	f.off = end
	f.n.mtime = f.fs.now()
	return len(b), nil
}

func (f *memFile) Seek(off int64, whence int) (int64, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	switch whence {
	case io.SeekCurrent:
		off += f.off
	case io.SeekEnd:
		off += int64(len(f.n.data))
	}
	f.off = off
	return off, nil
}

func (f *memFile) Close() error { return nil }

func (f *memFile) Stat() (fs.FileInfo, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	return memInfo{path.Base(f.name), *f.n}, nil
}

func (m *memFS) read(name string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n, ok := m.nodes[name]; ok {
		return string(n.data)
	}
	return "<missing>"
}
