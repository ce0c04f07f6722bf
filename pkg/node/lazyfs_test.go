package node

import (
	"io"
	"os"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
)

// countedFS is a lazyFS whose build writes /etc/app.conf and counts.
func countedFS(builds *int) *lazyFS {
	return &lazyFS{abs: pathRules[false].Abs, build: func() program.FS {
		*builds++
		f := vfs.New(vfs.Options{})
		writeFile(f.Privileged(), "/etc/app.conf", []byte("listen 80;\n"), 0o644)
		return f
	}}
}

func readAll(t *testing.T, f program.FS, name string) string {
	t.Helper()
	fh, err := f.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	defer fh.Close()
	b, _ := io.ReadAll(fh)
	return string(b)
}

// A tree that was only read is let go and made again the same at the
// next use; one written to is kept, with what was written.
func TestLazyFSDropsOnlyWhatWasRead(t *testing.T) {
	builds := 0
	l := countedFS(&builds)
	if l.drop() {
		t.Fatal("dropped a tree never made")
	}
	if got := readAll(t, l, "/etc/app.conf"); got != "listen 80;\n" || builds != 1 {
		t.Fatalf("read %q after %d builds", got, builds)
	}
	if !l.drop() || l.built() {
		t.Fatal("a tree only read was kept")
	}
	if got := readAll(t, l, "/etc/app.conf"); got != "listen 80;\n" || builds != 2 {
		t.Fatalf("after the drop: read %q after %d builds", got, builds)
	}

	fh, err := l.OpenFile("/etc/app.conf", os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fh.Write([]byte("listen 8080;\n"))
	_ = fh.Close()
	if l.drop() {
		t.Fatal("dropped a tree written to")
	}
	if got := readAll(t, l, "/etc/app.conf"); got != "listen 8080;\n" || builds != 2 {
		t.Fatalf("after a write: read %q after %d builds", got, builds)
	}
}
