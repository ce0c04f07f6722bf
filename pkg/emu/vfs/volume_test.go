package vfs

import (
	"fmt"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
)

func TestSharedVolume(t *testing.T) {
	v := NewVolume()
	a := New(Options{})
	b := New(Options{})
	mustOK(t, a.Mount("/cache", v, "", false))
	mustOK(t, b.Mount("/data/shared", v, "", false))
	writeFile(t, a, "/cache/from-a", "hello from a")
	if got := readFile(t, b, "/data/shared/from-a"); got != "hello from a" {
		t.Errorf("b reads %q", got)
	}
	// An open file's writes show in the other container at once.
	w, err := b.OpenFile("/data/shared/log", os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	mustOK(t, err)
	fmt.Fprintln(w, "line 1")
	if got := readFile(t, a, "/cache/log"); got != "line 1\n" {
		t.Errorf("a reads %q", got)
	}
	w.Close()
	// The volume outlives a container: a new FS (a restart) sees it.
	c := New(Options{})
	mustOK(t, c.Mount("/cache", v, "", false))
	entries, _ := c.ReadDir("/cache")
	if len(entries) != 2 {
		t.Errorf("after restart: %v", entries)
	}
	// A mount shadows what was below it.
	d := New(Options{})
	mustOK(t, d.Mkdir("/cache", 0o755))
	writeFile(t, d, "/cache/old", "hidden")
	mustOK(t, d.Mount("/cache", v, "", false))
	if _, err := d.Stat("/cache/old"); errno(t, err) != syscall.ENOENT {
		t.Errorf("shadowed file: %v", err)
	}
	mustOK(t, d.Unmount("/cache"))
	if got := readFile(t, d, "/cache/old"); got != "hidden" {
		t.Errorf("after unmount: %q", got)
	}
}

func TestSubPathMounts(t *testing.T) {
	v := NewVolume()
	mustOK(t, v.MkdirAll("conf", 0o755))
	mustOK(t, v.WriteFile("conf/app.ini", []byte("k=v\n"), 0o600))
	f := New(Options{ReadOnlyRoot: true})
	// A file mounted over a file of the image, and at a new path.
	mustOK(t, f.Privileged().MkdirAll("/etc", 0o755))
	writeFile(t, f.Privileged(), "/etc/app.ini", "image")
	mustOK(t, f.Mount("/etc/app.ini", v, "conf/app.ini", false))
	mustOK(t, f.Mount("/opt/new/app.ini", v, "conf/app.ini", true))
	if got := readFile(t, f, "/etc/app.ini"); got != "k=v\n" {
		t.Errorf("file mount: %q", got)
	}
	if fi, _ := f.Stat("/opt/new/app.ini"); fi.Mode() != 0o600 || fi.Name() != "app.ini" {
		t.Errorf("file mount stat %v %s", fi.Mode(), fi.Name())
	}
	writeFile(t, f, "/etc/app.ini", "changed")
	if got := readFile(t, f, "/opt/new/app.ini"); got != "changed" {
		t.Errorf("second mount of the file: %q", got)
	}
	if err := tryWrite(f, "/opt/new/app.ini", "x"); errno(t, err) != syscall.EROFS {
		t.Errorf("read-only file mount: %v", err)
	}
	// A missing subPath is made as a directory in the volume.
	mustOK(t, f.Mount("/work", v, "pods/p1", false))
	writeFile(t, f, "/work/out", "o")
	fi, err := v.FS().Stat("/pods/p1/out")
	if err != nil || fi.Size() != 1 {
		t.Errorf("subPath dir in volume: %v %v", fi, err)
	}
	// Mount points cannot be removed or renamed.
	for _, err := range []error{f.Remove("/work"), f.Rename("/work", "/work2"), f.RemoveAll("/work")} {
		if errno(t, err) != syscall.EBUSY && errno(t, err) != syscall.EROFS {
			t.Errorf("remove/rename mount point: %v", err)
		}
	}
	g := New(Options{})
	mustOK(t, g.Mount("/m", v, "", false))
	if err := g.Remove("/m"); errno(t, err) != syscall.EBUSY || program.ErrorText(err, false) != "Device or resource busy" {
		t.Errorf("remove mount point: %v", err)
	}
	if err := g.Rename("/m/conf/app.ini", "/app.ini"); errno(t, err) != syscall.EXDEV {
		t.Errorf("rename across mounts: %v", err)
	}
	// Longest prefix wins: a mount inside a mount.
	inner := NewVolume()
	mustOK(t, inner.WriteFile("x", []byte("inner"), 0o644))
	mustOK(t, g.Mount("/m/conf", inner, "", false))
	if got := readFile(t, g, "/m/conf/x"); got != "inner" {
		t.Errorf("nested mount: %q", got)
	}
	if _, err := g.Stat("/m/conf/app.ini"); errno(t, err) != syscall.ENOENT {
		t.Errorf("shadowed by nested mount: %v", err)
	}
	if entries, _ := g.ReadDir("/m"); len(entries) != 2 || !entries[0].IsDir() {
		t.Errorf("ReadDir of a volume: %v", entries)
	}
}

func TestReadOnly(t *testing.T) {
	v := NewVolume()
	mustOK(t, v.MkdirAll("d", 0o755))
	mustOK(t, v.WriteFile("d/f", []byte("x"), 0o644))
	f := New(Options{ReadOnlyRoot: true})
	p := f.Privileged()
	mustOK(t, p.MkdirAll("/etc", 0o755))
	writeFile(t, p, "/etc/passwd", "root:x:0:0::/root:/bin/sh\n")
	mustOK(t, f.Mount("/ro", v, "", true))
	mustOK(t, f.Mount("/rw", v, "", false))
	ops := map[string]func(dir string) error{
		"create":    func(dir string) error { return tryWrite(f, dir+"/new", "x") },
		"truncate":  func(dir string) error { return openErr(f, dir+"/f", os.O_RDONLY|os.O_TRUNC) },
		"writeopen": func(dir string) error { return openErr(f, dir+"/f", os.O_RDWR) },
		"mkdir":     func(dir string) error { return f.Mkdir(dir+"/newdir", 0o755) },
		"remove":    func(dir string) error { return f.Remove(dir + "/f") },
		"rename":    func(dir string) error { return f.Rename(dir+"/f", dir+"/g") },
		"chmod":     func(dir string) error { return f.Chmod(dir+"/f", 0o600) },
		"symlink":   func(dir string) error { return f.Symlink("f", dir+"/l") },
	}
	writeFile(t, p, "/etc/f", "x")
	for op, do := range ops {
		for _, dir := range []string{"/ro/d", "/etc"} {
			err := do(dir)
			if errno(t, err) != syscall.EROFS {
				t.Errorf("%s in %s: %v, want EROFS", op, dir, err)
				continue
			}
			if got := program.ErrorText(err, false); got != "Read-only file system" {
				t.Errorf("%s: Linux wording %q", op, got)
			}
			if got := program.ErrorText(err, true); got != "Access is denied." {
				t.Errorf("%s: Windows wording %q", op, got)
			}
		}
	}
	// Reads work; the same volume mounted read-write takes writes.
	if got := readFile(t, f, "/ro/d/f"); got != "x" {
		t.Errorf("read from read-only mount: %q", got)
	}
	writeFile(t, f, "/rw/d/new", "y")
	if got := readFile(t, f, "/ro/d/new"); got != "y" {
		t.Errorf("read-only view of a write: %q", got)
	}
	// mkdir of an existing directory says EEXIST, as Linux does.
	if err := f.Mkdir("/etc", 0o755); errno(t, err) != syscall.EEXIST {
		t.Errorf("mkdir existing on read-only root: %v", err)
	}
}

// TestAtomicWriter reads a configMap volume laid out as the kubelet's
// atomic writer does.
func TestAtomicWriter(t *testing.T) {
	v := NewVolume()
	ts := "..2026_11_24_10_00_00.123456789"
	mustOK(t, v.MkdirAll(ts+"/sub", 0o755))
	mustOK(t, v.WriteFile(ts+"/data-1", []byte("value-1"), 0o644))
	mustOK(t, v.WriteFile(ts+"/sub/path", []byte("nested"), 0o400))
	mustOK(t, v.Symlink(ts, "..data"))
	mustOK(t, v.Symlink("..data/data-1", "data-1"))
	mustOK(t, v.Symlink("..data/sub", "sub"))
	mustOK(t, v.Chown(ts+"/data-1", 0, 1234))

	f := New(Options{})
	mustOK(t, f.Mount("/etc/config", v, "", true))
	if got := readFile(t, f, "/etc/config/data-1"); got != "value-1" {
		t.Errorf("key: %q", got)
	}
	if got := readFile(t, f, "/etc/config/sub/path"); got != "nested" {
		t.Errorf("nested key: %q", got)
	}
	fi, err := f.Stat("/etc/config/data-1")
	mustOK(t, err)
	if _, gid := fi.Sys().(program.FileOwner).Owner(); fi.Mode() != 0o644 || gid != 1234 {
		t.Errorf("key stat: %v gid %d", fi.Mode(), gid)
	}
	if fi, _ := f.Stat("/etc/config/sub/path"); fi.Mode() != 0o400 {
		t.Errorf("mode of item path: %v", fi.Mode())
	}
	if fi, _ := f.Lstat("/etc/config/data-1"); fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("key is not a symlink: %v", fi.Mode())
	}
	entries, _ := f.ReadDir("/etc/config")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := fmt.Sprint([]string{ts, "..data", "data-1", "sub"}); fmt.Sprint(names) != want {
		t.Errorf("ls -a: %v, want %v", names, want)
	}
	// An update: a new timestamped dir, ..data swapped by rename.
	ts2 := "..2026_11_24_10_01_00.000000001"
	mustOK(t, v.MkdirAll(ts2, 0o755))
	mustOK(t, v.WriteFile(ts2+"/data-1", []byte("value-2"), 0o644))
	mustOK(t, v.Symlink(ts2, "..data_tmp"))
	mustOK(t, v.Rename("..data_tmp", "..data"))
	mustOK(t, v.Remove(ts))
	if got := readFile(t, f, "/etc/config/data-1"); got != "value-2" {
		t.Errorf("after update: %q", got)
	}
}

// TestConcurrent runs containers writing one volume at once (go test
// -race finds unguarded state).
func TestConcurrent(t *testing.T) {
	v := NewVolume()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := New(Options{})
			if err := f.Mount("/v", v, "", false); err != nil {
				t.Error(err)
				return
			}
			for j := range 50 {
				dir := fmt.Sprintf("/v/c%d", i)
				f.MkdirAll(dir, 0o755)
				name := fmt.Sprintf("%s/f%d", dir, j%5)
				if err := tryWrite(f, name, "data"); err != nil {
					t.Error(err)
				}
				tryRead(f, name)
				f.ReadDir("/v")
				f.Rename(name, name+".old")
				f.RemoveAll(name + ".old")
			}
		}()
	}
	wg.Wait()
}

// Filesystems made On one volume share their root: what one writes
// outside its mounts the others see (HostProcess containers on a node's
// disk), while each keeps its own mounts.
func TestOnSharesRoot(t *testing.T) {
	disk := NewVolume()
	a := On(disk, Options{Windows: true})
	b := On(disk, Options{Windows: true})
	writeFile(t, a, `C:\testfile.txt`, "test")
	if got := readFile(t, b, `c:\TESTFILE.txt`); got != "test" {
		t.Errorf("b reads %q", got)
	}
	img := NewVolume()
	mustOK(t, img.WriteFile("agnhost", []byte("bin"), 0o755))
	mustOK(t, a.Mount(`C:\hpc`, img, "", false))
	if got := readFile(t, a, `C:\hpc\agnhost`); got != "bin" {
		t.Errorf("a's own mount reads %q", got)
	}
	if _, err := b.Stat(`C:\hpc\agnhost`); errno(t, err) != syscall.ENOENT {
		t.Errorf("b sees a's mount: %v", err)
	}
	if _, err := disk.FS().Stat("/testfile.txt"); err != nil {
		t.Errorf("the volume lacks the file: %v", err)
	}
}

// A lazy mount makes its volume at the first lookup through it, or when
// the directory holding it is listed, and only once; a lookup beside it
// makes nothing.
func TestLazyMount(t *testing.T) {
	f := New(Options{})
	opened := 0
	open := func() *Volume {
		opened++
		v := NewVolume()
		mustOK(t, v.WriteFile("token", []byte("secret"), 0o644))
		return v
	}
	mustOK(t, f.MountLazy("/var/run/secrets/sa", open, true))
	mustOK(t, f.MkdirAll("/etc/nginx", 0o755))
	writeFile(t, f, "/etc/nginx/nginx.conf", "events {}")
	if _, err := f.ReadDir("/etc"); err != nil || opened != 0 {
		t.Fatalf("a lookup beside the mount opened it %d times (%v)", opened, err)
	}
	if got := readFile(t, f, "/var/run/secrets/sa/token"); got != "secret" || opened != 1 {
		t.Errorf("read %q, opened %d times", got, opened)
	}
	if err := tryWrite(f, "/var/run/secrets/sa/x", "y"); errno(t, err) != syscall.EROFS {
		t.Errorf("write to the read-only lazy mount: %v", err)
	}
	g := New(Options{})
	mustOK(t, g.MountLazy("/var/run/secrets/sa", open, false))
	entries, err := g.ReadDir("/var/run/secrets")
	if err != nil || len(entries) != 1 || !entries[0].IsDir() || opened != 2 {
		t.Errorf("listing the parent: %v, %v, opened %d times", entries, err, opened)
	}
}
