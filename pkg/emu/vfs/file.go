package vfs

import (
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"

	"github.com/winkube/winkube/pkg/emu/program"
)

// OpenFile opens a name with os.O_* flags; a created file gets perm less
// the umask.
func (f *FS) OpenFile(name string, flag int, perm fs.FileMode) (program.File, error) {
	excl := flag&os.O_CREATE != 0 && flag&os.O_EXCL != 0
	l, err := f.resolve("open", name, !excl)
	if err != nil {
		return nil, err
	}
	if l.node != nil {
		if excl {
			return nil, pathErr("open", name, syscall.EEXIST)
		}
		return f.openExisting(l, name, flag)
	}
	if flag&os.O_CREATE == 0 {
		return nil, pathErr("open", name, syscall.ENOENT)
	}
	n, err := f.create(l, kindFile, perm, "")
	switch {
	case err == errExists && !excl:
		return f.OpenFile(name, flag&^os.O_CREATE, perm) // made meanwhile
	case err == errExists:
		return nil, pathErr("open", name, syscall.EEXIST)
	case err != nil:
		return nil, pathErr("open", name, err)
	}
	// The creator may write a file it makes even with perm 0444.
	return &file{n: n, fs: f, name: name, flag: flag}, nil
}

func (f *FS) openExisting(l loc, name string, flag int) (program.File, error) {
	n := l.node
	write := flag&accMode != os.O_RDONLY
	trunc := flag&os.O_TRUNC != 0
	if n.kind == kindDir && (write || trunc) {
		return nil, pathErr("open", name, syscall.EISDIR)
	}
	// Devices live on /dev, a tmpfs of its own: writable under a
	// read-only root.
	if (write || trunc) && n.kind != kindDevice && f.readOnly(l.m) {
		return nil, pathErr("open", name, syscall.EROFS)
	}
	t := n.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	if flag&accMode != os.O_WRONLY && !f.may(n, 4) || (write || trunc) && !f.may(n, 2) {
		return nil, pathErr("open", name, syscall.EACCES)
	}
	if trunc && n.kind == kindFile {
		n.resize(0)
		n.mtime = f.s.now()
	}
	return &file{n: n, fs: f, name: name, flag: flag}, nil
}

const accMode = os.O_RDONLY | os.O_WRONLY | os.O_RDWR

// resize sets a file's length, keeping the tree's count. The caller
// holds the lock and has checked the limit.
func (n *inode) resize(size int64) {
	old := int64(len(n.data))
	switch {
	case size == 0:
		n.data = nil
	case size <= int64(cap(n.data)):
		if size > old {
			clear(n.data[old:size])
		}
		n.data = n.data[:size]
	default:
		data := make([]byte, size, max(size, 2*int64(cap(n.data))))
		copy(data, n.data)
		n.data = data
	}
	if !n.unlinked {
		n.tree.used += size - old
	}
}

// room is how long a file may grow to within its tree's limit. The
// caller holds the lock.
func (n *inode) room() int64 {
	t := n.tree
	if t.limit <= 0 || n.unlinked {
		return 1<<62 - 1
	}
	return int64(len(n.data)) + max(t.limit-t.used, 0)
}

// file is an open file. Its data is the inode's, so writes show to every
// opener at once.
type file struct {
	fs   *FS
	n    *inode
	name string
	flag int

	mu     sync.Mutex // guards pos and closed
	pos    int64
	closed bool
}

// Name is the name the file was opened by.
func (o *file) Name() string { return o.name }

func (o *file) Read(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.closed:
		return 0, pathErr("read", o.name, os.ErrClosed)
	case o.flag&accMode == os.O_WRONLY:
		return 0, pathErr("read", o.name, syscall.EBADF)
	case o.n.kind == kindDir:
		return 0, pathErr("read", o.name, syscall.EISDIR)
	case o.n.kind == kindDevice:
		return readDevice(o.n.device, p)
	}
	t := o.n.tree
	t.mu.RLock()
	defer t.mu.RUnlock()
	if o.pos >= int64(len(o.n.data)) {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := copy(p, o.n.data[o.pos:])
	o.pos += int64(n)
	return n, nil
}

func (o *file) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.closed:
		return 0, pathErr("write", o.name, os.ErrClosed)
	case o.flag&accMode == os.O_RDONLY:
		return 0, pathErr("write", o.name, syscall.EBADF)
	case o.n.kind == kindDevice:
		return len(p), nil
	}
	t := o.n.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	if o.flag&os.O_APPEND != 0 {
		o.pos = int64(len(o.n.data))
	}
	want := len(p)
	if end, room := o.pos+int64(len(p)), o.n.room(); end > room {
		p = p[:max(room-o.pos, 0)]
	}
	if end := o.pos + int64(len(p)); end > int64(len(o.n.data)) {
		o.n.resize(end)
	}
	copy(o.n.data[o.pos:], p)
	o.pos += int64(len(p))
	o.n.mtime = o.fs.s.now()
	if len(p) < want {
		return len(p), pathErr("write", o.name, syscall.ENOSPC)
	}
	return len(p), nil
}

func (o *file) Seek(offset int64, whence int) (int64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return 0, pathErr("seek", o.name, os.ErrClosed)
	}
	pos := offset
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		pos += o.pos
	case io.SeekEnd:
		o.n.tree.mu.RLock()
		pos += int64(len(o.n.data))
		o.n.tree.mu.RUnlock()
	default:
		return 0, pathErr("seek", o.name, syscall.EINVAL)
	}
	if pos < 0 {
		return 0, pathErr("seek", o.name, syscall.EINVAL)
	}
	o.pos = pos
	return pos, nil
}

// Truncate sets the file's length, as ftruncate(2).
func (o *file) Truncate(size int64) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.closed:
		return pathErr("truncate", o.name, os.ErrClosed)
	case o.flag&accMode == os.O_RDONLY || o.n.kind != kindFile || size < 0:
		return pathErr("truncate", o.name, syscall.EINVAL)
	}
	t := o.n.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	if size > o.n.room() {
		return pathErr("truncate", o.name, syscall.ENOSPC)
	}
	o.n.resize(size)
	o.n.mtime = o.fs.s.now()
	return nil
}

func (o *file) Stat() (fs.FileInfo, error) {
	o.mu.Lock()
	closed := o.closed
	o.mu.Unlock()
	if closed {
		return nil, pathErr("stat", o.name, os.ErrClosed)
	}
	t := o.n.tree
	t.mu.RLock()
	defer t.mu.RUnlock()
	return o.n.info(o.fs.baseName(o.name)), nil
}

func (o *file) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return pathErr("close", o.name, os.ErrClosed)
	}
	o.closed = true
	return nil
}
