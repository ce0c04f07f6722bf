package vfs

import (
	"io"
	"os"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
)

// countedFS is a Lazy whose build writes /etc/app.conf and counts.
func countedFS(t *testing.T, builds *int) *Lazy {
	return NewLazy(func() program.FS {
		*builds++
		f := New(Options{})
		root := f.Privileged()
		if err := root.MkdirAll("/etc", 0o755); err != nil {
			t.Fatal(err)
		}
		fh, err := root.OpenFile("/etc/app.conf", os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fh.Write([]byte("listen 80;\n"))
		_ = fh.Close()
		return f
	}, New(Options{}).Abs)
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
func TestLazyDropsOnlyWhatWasRead(t *testing.T) {
	builds := 0
	l := countedFS(t, &builds)
	if l.Drop() {
		t.Fatal("dropped a tree never made")
	}
	if got := readAll(t, l, "/etc/app.conf"); got != "listen 80;\n" || builds != 1 {
		t.Fatalf("read %q after %d builds", got, builds)
	}
	if !l.Drop() || l.Built() {
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
	if l.Drop() {
		t.Fatal("dropped a tree written to")
	}
	if got := readAll(t, l, "/etc/app.conf"); got != "listen 8080;\n" || builds != 2 {
		t.Fatalf("after a write: read %q after %d builds", got, builds)
	}
}
