// Package vfstest gives program tests a container filesystem: the node's
// own vfs, laid out as a small busybox image (/, /bin, /dev/null, /etc,
// /tmp), with Put to add files.
package vfstest

import (
	"io"
	"io/fs"
	"os"
	"path"
	"time"

	"github.com/winkube/winkube/pkg/emu/vfs"
)

// FS is a root-owned Linux container filesystem.
type FS struct {
	*vfs.FS
}

// New makes the filesystem; clock stamps modification times.
func New(clock interface{ Now() time.Time }) *FS {
	f := &FS{vfs.New(vfs.Options{Clock: clock})}
	priv := f.Privileged()
	for _, d := range []string{"/bin", "/etc", "/tmp"} {
		_ = priv.MkdirAll(d, 0o755)
	}
	_ = priv.Chmod("/tmp", fs.ModeSticky|0o777)
	_ = priv.Device("/dev/null", "null")
	return f
}

// Put writes a file with exactly mode perm, making its directories.
func (f *FS) Put(name, data string, perm fs.FileMode) {
	priv := f.Privileged()
	_ = priv.MkdirAll(path.Dir(name), 0o755)
	w, err := priv.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		panic(err) // a test's own setup
	}
	_, _ = w.Write([]byte(data))
	_ = w.Close()
	_ = priv.Chmod(name, perm)
}

// Read is a file's content, or "<missing>" when it cannot be read.
func (f *FS) Read(name string) string {
	r, err := f.Privileged().OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return "<missing>"
	}
	defer r.Close()
	b, _ := io.ReadAll(r)
	return string(b)
}
