package vfs

import (
	"io"
	"io/fs"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

func TestAbsLinux(t *testing.T) {
	f := New(Options{})
	tests := []struct{ dir, name, want string }{
		{"/", "a", "/a"},
		{"/a/b", "../c", "/a/c"},
		{"/a", "/x/./y/", "/x/y"},
		{"/a", "", "/a"},
		{"/", "../..", "/"},
		{"/a", `b\c`, `/a/b\c`},
	}
	for _, tt := range tests {
		if got := f.Abs(tt.dir, tt.name); got != tt.want {
			t.Errorf("Abs(%q, %q) = %q, want %q", tt.dir, tt.name, got, tt.want)
		}
	}
}

func TestFilesAndDirs(t *testing.T) {
	clock := newClock()
	f := New(Options{UID: 1000, GID: 2000, Clock: clock})
	p := f.Privileged()
	mustOK(t, p.MkdirAll("/home/u", 0o777))
	mustOK(t, p.Chown("/home/u", 1000, 2000))
	writeFile(t, f, "/home/u/a.txt", "hello")

	fi, err := f.Stat("/home/u/a.txt")
	mustOK(t, err)
	if fi.Name() != "a.txt" || fi.Size() != 5 || fi.Mode() != 0o644 || !fi.ModTime().Equal(clock.Now()) {
		t.Errorf("stat = %s %d %v %v", fi.Name(), fi.Size(), fi.Mode(), fi.ModTime())
	}
	uid, gid := fi.Sys().(program.FileOwner).Owner()
	if uid != 1000 || gid != 2000 {
		t.Errorf("owner = %d:%d, want 1000:2000", uid, gid)
	}
	mustOK(t, f.Mkdir("/home/u/d", 0o777))
	if fi, _ := f.Stat("/home/u/d"); fi.Mode() != fs.ModeDir|0o755 {
		t.Errorf("mkdir mode = %v, want drwxr-xr-x", fi.Mode())
	}
	mustOK(t, f.Chmod("/home/u/d", 0o750|fs.ModeSetgid|fs.ModeSticky))
	if fi, _ := f.Stat("/home/u/d"); fi.Mode() != fs.ModeDir|fs.ModeSetgid|fs.ModeSticky|0o750 {
		t.Errorf("chmod mode = %v", fi.Mode())
	}
	when := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	mustOK(t, f.Chtimes("/home/u/a.txt", when))
	if fi, _ := f.Stat("/home/u/a.txt"); !fi.ModTime().Equal(when) {
		t.Errorf("chtimes: mtime %v", fi.ModTime())
	}
	entries, err := f.ReadDir("/home/u")
	mustOK(t, err)
	if len(entries) != 2 || entries[0].Name() != "a.txt" || entries[1].Name() != "d" || !entries[1].IsDir() {
		t.Errorf("ReadDir = %v", entries)
	}
	mustOK(t, f.Rename("/home/u/a.txt", "/home/u/d/b.txt"))
	if got := readFile(t, f, "/home/u/d/b.txt"); got != "hello" {
		t.Errorf("after rename: %q", got)
	}
	mustOK(t, f.RemoveAll("/home/u/d"))
	if _, err := f.Lstat("/home/u/d"); errno(t, err) != syscall.ENOENT {
		t.Errorf("after RemoveAll: %v", err)
	}
}

func TestErrors(t *testing.T) {
	f := New(Options{})
	mustOK(t, f.MkdirAll("/d/sub", 0o755))
	writeFile(t, f, "/d/file", "x")
	mustOK(t, f.Symlink("loop2", "/d/loop1"))
	mustOK(t, f.Symlink("loop1", "/d/loop2"))
	tests := []struct {
		name string
		err  error
		want syscall.Errno
	}{
		{"stat missing", func() error { _, err := f.Stat("/nope"); return err }(), syscall.ENOENT},
		{"stat under missing", func() error { _, err := f.Stat("/nope/x"); return err }(), syscall.ENOENT},
		{"stat under file", func() error { _, err := f.Stat("/d/file/x"); return err }(), syscall.ENOTDIR},
		{"open dir for write", func() error { _, err := f.OpenFile("/d", os.O_WRONLY, 0); return err }(), syscall.EISDIR},
		{"mkdir existing", f.Mkdir("/d", 0o755), syscall.EEXIST},
		{"mkdir over file", f.Mkdir("/d/file", 0o755), syscall.EEXIST},
		{"mkdirall through file", f.MkdirAll("/d/file/x", 0o755), syscall.ENOTDIR},
		{"create excl", func() error { _, err := f.OpenFile("/d/file", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); return err }(), syscall.EEXIST},
		{"remove non-empty", f.Remove("/d"), syscall.ENOTEMPTY},
		{"remove root", f.Remove("/"), syscall.EBUSY},
		{"symlink loop", func() error { _, err := f.Stat("/d/loop1"); return err }(), syscall.ELOOP},
		{"readlink file", func() error { _, err := f.Readlink("/d/file"); return err }(), syscall.EINVAL},
		{"rename dir into itself", f.Rename("/d", "/d/sub/x"), syscall.EINVAL},
		{"rename dir over file", f.Rename("/d/sub", "/d/file"), syscall.ENOTDIR},
		{"rename file over dir", f.Rename("/d/file", "/d/sub"), syscall.EISDIR},
		{"rename missing", f.Rename("/d/none", "/d/x"), syscall.ENOENT},
		{"seek negative", func() error {
			r, _ := f.OpenFile("/d/file", os.O_RDONLY, 0)
			_, err := r.Seek(-1, io.SeekStart)
			return err
		}(), syscall.EINVAL},
	}
	for _, tt := range tests {
		if got := errno(t, tt.err); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.err, tt.want)
		}
	}
	// Lstat does not follow a looping symlink.
	if fi, err := f.Lstat("/d/loop1"); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat loop1 = %v, %v", fi, err)
	}
	if err := f.RemoveAll("/nope"); err != nil {
		t.Errorf("RemoveAll of a missing name: %v", err)
	}
}

func TestSymlinks(t *testing.T) {
	f := New(Options{})
	mustOK(t, f.MkdirAll("/data/real", 0o755))
	writeFile(t, f, "/data/real/f", "content")
	mustOK(t, f.Symlink("real", "/data/rel"))
	mustOK(t, f.Symlink("/data/real/f", "/abs"))
	mustOK(t, f.Symlink("../data/./real/../real", "/data/dots"))
	mustOK(t, f.Symlink("missing", "/dangling"))
	for _, name := range []string{"/data/rel/f", "/abs", "/data/dots/f"} {
		if got := readFile(t, f, name); got != "content" {
			t.Errorf("read %s = %q", name, got)
		}
	}
	if fi, _ := f.Stat("/abs"); fi.Mode() != 0o644 || fi.Name() != "abs" {
		t.Errorf("Stat through symlink = %v %s", fi.Mode(), fi.Name())
	}
	if fi, _ := f.Lstat("/abs"); fi.Mode() != fs.ModeSymlink|0o777 {
		t.Errorf("Lstat symlink mode = %v", fi.Mode())
	}
	if target, _ := f.Readlink("/data/rel"); target != "real" {
		t.Errorf("Readlink = %q", target)
	}
	// Creating through a dangling symlink creates its target.
	writeFile(t, f, "/dangling", "made")
	if got := readFile(t, f, "/missing"); got != "made" {
		t.Errorf("created through dangling link: %q", got)
	}
	// Removing a symlink removes the link only.
	mustOK(t, f.Remove("/abs"))
	if got := readFile(t, f, "/data/real/f"); got != "content" {
		t.Errorf("target after removing link: %q", got)
	}
}

func TestOpenFlags(t *testing.T) {
	f := New(Options{})
	writeFile(t, f, "/f", "hello world")
	a, err := f.OpenFile("/f", os.O_RDWR, 0)
	mustOK(t, err)
	b, err := f.OpenFile("/f", os.O_RDONLY, 0)
	mustOK(t, err)
	// A write through one handle shows through another at once.
	_, err = a.Seek(6, io.SeekStart)
	mustOK(t, err)
	_, err = io.WriteString(a, "WORLD!")
	mustOK(t, err)
	all, _ := io.ReadAll(b)
	if string(all) != "hello WORLD!" {
		t.Errorf("shared data: %q", all)
	}
	if _, err := b.Write([]byte("x")); errno(t, err) != syscall.EBADF {
		t.Errorf("write to read-only handle: %v", err)
	}
	if fi, _ := a.Stat(); fi.Size() != 12 {
		t.Errorf("File.Stat size %d", fi.Size())
	}
	mustOK(t, a.Close())
	if _, err := a.Read(make([]byte, 1)); err == nil {
		t.Errorf("read after close succeeded")
	}
	// O_APPEND writes at the end whatever the offset.
	ap, _ := f.OpenFile("/f", os.O_WRONLY|os.O_APPEND, 0)
	io.WriteString(ap, "+")
	ap.Close()
	// O_TRUNC empties.
	if got := readFile(t, f, "/f"); got != "hello WORLD!+" {
		t.Errorf("append: %q", got)
	}
	tr, _ := f.OpenFile("/f", os.O_WRONLY|os.O_TRUNC, 0)
	tr.Close()
	if got := readFile(t, f, "/f"); got != "" {
		t.Errorf("trunc: %q", got)
	}
	// Writing past the end leaves a hole of zeros.
	h, _ := f.OpenFile("/f", os.O_WRONLY, 0)
	h.Seek(3, io.SeekStart)
	io.WriteString(h, "x")
	h.Close()
	if got := readFile(t, f, "/f"); got != "\x00\x00\x00x" {
		t.Errorf("hole: %q", got)
	}
	// Missing without O_CREATE.
	if _, err := f.OpenFile("/none", os.O_WRONLY, 0); errno(t, err) != syscall.ENOENT {
		t.Errorf("open missing: %v", err)
	}
}

func TestDevices(t *testing.T) {
	f := New(Options{ReadOnlyRoot: true})
	for _, k := range []string{"null", "zero", "urandom"} {
		mustOK(t, f.Device("/dev/"+k, k))
	}
	if err := f.Device("/dev/tty", "tty"); errno(t, err) != syscall.EINVAL {
		t.Errorf("unknown device: %v", err)
	}
	if got := readFile(t, f, "/dev/null"); got != "" {
		t.Errorf("/dev/null reads %q", got)
	}
	// Writable under a read-only root, and discarded.
	writeFile(t, f, "/dev/null", "gone")
	z, _ := f.OpenFile("/dev/zero", os.O_RDONLY, 0)
	buf := []byte("abc")
	if n, err := z.Read(buf); n != 3 || err != nil || string(buf) != "\x00\x00\x00" {
		t.Errorf("/dev/zero read %d %v %q", n, err, buf)
	}
	u, _ := f.OpenFile("/dev/urandom", os.O_RDONLY, 0)
	if n, err := io.ReadFull(u, make([]byte, 64)); n != 64 || err != nil {
		t.Errorf("/dev/urandom read %d %v", n, err)
	}
	if fi, _ := f.Stat("/dev/null"); fi.Mode() != fs.ModeDevice|fs.ModeCharDevice|0o666 {
		t.Errorf("/dev/null mode %v", fi.Mode())
	}
}

func TestENOSPC(t *testing.T) {
	f := New(Options{Limit: 10})
	err := tryWrite(f, "/a", "0123456789ab")
	if errno(t, err) != syscall.ENOSPC {
		t.Fatalf("write over the limit: %v", err)
	}
	if got := program.ErrorText(err, false); got != "No space left on device" {
		t.Errorf("wording %q", got)
	}
	if got := readFile(t, f, "/a"); got != "0123456789" {
		t.Errorf("partial write kept %q", got)
	}
	// Freeing space lets writes go on.
	mustOK(t, f.Remove("/a"))
	writeFile(t, f, "/b", "0123456789")
	// A volume has no limit of the root layer's.
	v := NewVolume()
	mustOK(t, f.Mount("/vol", v, "", false))
	writeFile(t, f, "/vol/big", string(make([]byte, 100)))
	lv := NewVolumeWith(VolumeOptions{Limit: 4})
	mustOK(t, f.Mount("/small", lv, "", false))
	if err := tryWrite(f, "/small/x", "12345"); errno(t, err) != syscall.ENOSPC {
		t.Errorf("sized volume: %v", err)
	}
}

func TestPermissions(t *testing.T) {
	f := New(Options{UID: 1000, GID: 1000, Groups: []int64{3000}})
	p := f.Privileged()
	mustOK(t, p.MkdirAll("/root", 0o700))
	writeFile(t, p, "/secret", "s")
	mustOK(t, p.Chmod("/secret", 0o600))
	mustOK(t, p.MkdirAll("/tmp", 0o777))
	mustOK(t, p.Chmod("/tmp", fs.ModeSticky|0o777))
	writeFile(t, p, "/tmp/roots", "r")
	mustOK(t, p.MkdirAll("/shared", 0o775))
	mustOK(t, p.Chown("/shared", 0, 3000))
	mustOK(t, p.Chmod("/shared", fs.ModeSetgid|0o775))

	if _, err := tryRead(f, "/secret"); errno(t, err) != syscall.EACCES {
		t.Errorf("read 0600 root file: %v", err)
	}
	if got := program.ErrorText(tryWrite(f, "/new", "x"), false); got != "Permission denied" {
		t.Errorf("create in / as non-root: %q", got)
	}
	if err := f.Remove("/tmp/roots"); errno(t, err) != syscall.EPERM {
		t.Errorf("remove other's file in sticky /tmp: %v", err)
	}
	if err := f.Chmod("/secret", 0o777); errno(t, err) != syscall.EPERM {
		t.Errorf("chmod other's file: %v", err)
	}
	// fsGroup: a setgid group-writable directory.
	mustOK(t, f.Mkdir("/shared/d", 0o777))
	writeFile(t, f, "/shared/d/f", "x")
	for name, want := range map[string]fs.FileMode{"/shared/d": fs.ModeDir | fs.ModeSetgid | 0o755, "/shared/d/f": 0o644} {
		fi, _ := f.Stat(name)
		_, gid := fi.Sys().(program.FileOwner).Owner()
		if fi.Mode() != want || gid != 3000 {
			t.Errorf("%s: mode %v gid %d, want %v gid 3000", name, fi.Mode(), gid, want)
		}
	}
	// Root is not checked.
	r := New(Options{})
	mustOK(t, r.Privileged().Chmod("/", 0o500))
	writeFile(t, r, "/ok", "x")
}
