// Package wintest has what the Windows programs' tests share: a Windows
// container filesystem (the node's own vfs, C:\ paths matched without
// case), a clock that moves when it is waited on, and a stub network. It
// is for tests only.
package wintest

import (
	"io"
	"os"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
)

// FS is a Windows container filesystem with an empty C:\.
type FS struct {
	*vfs.FS
	Clock program.Clock
}

// NewFS is an FS stamping times with c.
func NewFS(c program.Clock) *FS {
	return &FS{FS: vfs.New(vfs.Options{Windows: true, Clock: c}), Clock: c}
}

// Put writes a file, making its directories.
func (f *FS) Put(name, data string) {
	name = f.Abs(`C:\`, name)
	_ = f.MkdirAll(name[:max(strings.LastIndex(name, `\`), 3)], 0o755)
	w, err := f.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		panic(err) // a test's own setup
	}
	_, _ = w.Write([]byte(data))
	_ = w.Close()
}

// Get is a file's content and whether it exists.
func (f *FS) Get(name string) (string, bool) {
	r, err := f.OpenFile(f.Abs(`C:\`, name), os.O_RDONLY, 0)
	if err != nil {
		return "", false
	}
	defer r.Close()
	if st, err := r.Stat(); err != nil || st.IsDir() {
		return "", false
	}
	b, _ := io.ReadAll(r)
	return string(b), true
}
