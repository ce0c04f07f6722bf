package netcmds

import (
	"io"
	"io/fs"
	"os"

	"github.com/winkube/winkube/pkg/emu/program"
)

// webFS is the container's filesystem as an fs.FS rooted at /, for
// test-webserver's http.FileServer (the real one serves http.Dir("/")).
type webFS struct{ p *program.Proc }

func (w webFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	path := w.p.Sys.FS.Abs("/", "/"+name)
	info, err := w.p.Sys.FS.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return &webDir{fsys: w.p.Sys.FS, path: path, info: info}, nil
	}
	f, err := w.p.Sys.FS.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// webDir is an open directory: Stat and ReadDir, no data.
type webDir struct {
	fsys    program.FS
	path    string
	info    fs.FileInfo
	entries []fs.DirEntry
	read    bool
}

func (d *webDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *webDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.path, Err: fs.ErrInvalid}
}
func (d *webDir) Close() error { return nil }

func (d *webDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		es, err := d.fsys.ReadDir(d.path)
		if err != nil {
			return nil, err
		}
		d.entries, d.read = es, true
	}
	if n <= 0 {
		es := d.entries
		d.entries = nil
		return es, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	if n > len(d.entries) {
		n = len(d.entries)
	}
	es := d.entries[:n]
	d.entries = d.entries[n:]
	return es, nil
}
