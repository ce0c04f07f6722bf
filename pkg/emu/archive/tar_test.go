package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
)

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time                       { return c.t }
func (c fixedClock) After(time.Duration) <-chan time.Time { return nil }

var (
	then = time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC)
	now  = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
)

func newFS(t *testing.T, opts vfs.Options) *vfs.FS {
	t.Helper()
	opts.Clock = fixedClock{now}
	f := vfs.New(opts)
	p := f.Privileged()
	must(t, p.MkdirAll("/etc", 0o755))
	write(t, p, "/etc/passwd", "root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000::/home/app:/bin/sh\n", 0o644)
	write(t, p, "/etc/group", "root:x:0:\napp:x:1000:\n", 0o644)
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, f program.FS, name, data string, perm fs.FileMode) {
	t.Helper()
	w, err := f.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	must(t, err)
	io.WriteString(w, data)
	must(t, w.Close())
}

func read(t *testing.T, f program.FS, name string) string {
	t.Helper()
	r, err := f.OpenFile(name, os.O_RDONLY, 0)
	must(t, err)
	defer r.Close()
	b, _ := io.ReadAll(r)
	return string(b)
}

// run runs tar on f as uid with stdin; it returns status, stdout, stderr.
func run(f *vfs.FS, uid int64, stdin []byte, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	p := &program.Proc{
		Args:   append([]string{"tar"}, args...),
		Dir:    f.Abs("/", ""),
		Stdin:  bytes.NewReader(stdin),
		Stdout: &out,
		Stderr: &errb,
		Sys: &program.Sys{Windows: f.Windows(), FS: f, Clock: fixedClock{now},
			User: program.User{UID: uid, GID: uid}},
	}
	status := Tar(context.Background(), p)
	return status, out.String(), errb.String()
}

// source is a tree with what an archive must keep: modes (setuid
// included), owners, mtimes, symlinks, nesting and an empty directory.
func source(t *testing.T) *vfs.FS {
	f := newFS(t, vfs.Options{})
	must(t, f.MkdirAll("/data/dir/empty", 0o755))
	must(t, f.Chmod("/data/dir", 0o750))
	write(t, f, "/data/dir/file.txt", "hello\n", 0o640)
	write(t, f, "/data/run.sh", "#!/bin/sh\n", 0o755)
	must(t, f.Chmod("/data/run.sh", 0o755|fs.ModeSetuid))
	must(t, f.Symlink("dir/file.txt", "/data/link"))
	must(t, f.Chown("/data/dir/file.txt", 1000, 1000))
	for _, n := range []string{"/data", "/data/dir", "/data/dir/file.txt", "/data/run.sh", "/data/dir/empty"} {
		must(t, f.Chtimes(n, then))
	}
	return f
}

func TestCreateArchive(t *testing.T) {
	f := source(t)
	status, out, errs := run(f, 0, nil, "cf", "-", "/data")
	if status != 0 || errs != "tar: Removing leading `/' from member names\n" {
		t.Fatalf("tar cf: %d %q", status, errs)
	}
	if len(out)%10240 != 0 {
		t.Errorf("archive length %d is not a multiple of the record size", len(out))
	}
	tr := tar.NewReader(strings.NewReader(out))
	var got []string
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		got = append(got, h.Name)
		if h.Format != tar.FormatGNU && h.Format != tar.FormatUnknown {
			t.Errorf("%s: format %v", h.Name, h.Format)
		}
		switch h.Name {
		case "data/dir/file.txt":
			if h.Mode != 0o640 || h.Uid != 1000 || h.Uname != "app" || h.Gname != "app" || !h.ModTime.Equal(then) || h.Size != 6 {
				t.Errorf("file header %+v", h)
			}
		case "data/run.sh":
			if h.Mode != 0o4755 {
				t.Errorf("setuid mode %o", h.Mode)
			}
		case "data/link":
			if h.Typeflag != tar.TypeSymlink || h.Linkname != "dir/file.txt" {
				t.Errorf("symlink header %+v", h)
			}
		}
	}
	want := "data/ data/dir/ data/dir/empty/ data/dir/file.txt data/link data/run.sh"
	if strings.Join(got, " ") != want {
		t.Errorf("members %q, want %q", got, want)
	}
	// -C and a relative name: no leading / to remove.
	status, out, errs = run(f, 0, nil, "cf", "-", "-C", "/data", "dir")
	if status != 0 || errs != "" || !strings.Contains(out, "dir/file.txt") {
		t.Errorf("tar cf - -C /data dir: %d %q", status, errs)
	}
}

func TestRoundTrip(t *testing.T) {
	src := source(t)
	_, archive, _ := run(src, 0, nil, "cf", "-", "/data")
	tests := []struct {
		name     string
		uid      int64
		args     []string
		fileMode fs.FileMode
		setuid   fs.FileMode
		owner    int64
		mtime    time.Time
	}{
		{"root keeps modes and owners", 0, []string{"-xf", "-", "-C", "/dst"}, 0o640, 0o4755 | fs.ModeSetuid, 1000, then},
		{"kubectl cp, -m", 0, []string{"-xmf", "-", "-C", "/dst"}, 0o640, 0o4755 | fs.ModeSetuid, 1000, now},
		{"kubectl cp --no-same-*", 0, []string{"--no-same-permissions", "--no-same-owner", "-xmf", "-", "-C", "/dst"}, 0o640, 0o755, 0, now},
		{"non-root", 1000, []string{"xf", "-", "-C", "/dst"}, 0o640, 0o755, 1000, then},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := newFS(t, vfs.Options{UID: tt.uid, GID: tt.uid})
			must(t, dst.Privileged().MkdirAll("/dst", 0o777))
			status, out, errs := run(dst, tt.uid, []byte(archive), tt.args...)
			if status != 0 || out != "" || errs != "" {
				t.Fatalf("status %d, stdout %q, stderr %q", status, out, errs)
			}
			if got := read(t, dst, "/dst/data/link"); got != "hello\n" {
				t.Errorf("through symlink: %q", got)
			}
			if l, _ := dst.Readlink("/dst/data/link"); l != "dir/file.txt" {
				t.Errorf("symlink target %q", l)
			}
			fi, err := dst.Stat("/dst/data/dir/file.txt")
			must(t, err)
			uid, _ := fi.Sys().(program.FileOwner).Owner()
			if fi.Mode() != tt.fileMode || uid != tt.owner || !fi.ModTime().Equal(tt.mtime) {
				t.Errorf("file: %v uid %d %v", fi.Mode(), uid, fi.ModTime())
			}
			if fi, _ := dst.Stat("/dst/data/run.sh"); fi.Mode() != tt.setuid&^0o4000 {
				t.Errorf("run.sh mode %v, want %v", fi.Mode(), tt.setuid&^0o4000)
			}
			if fi, _ := dst.Stat("/dst/data/dir"); !fi.ModTime().Equal(tt.mtime) {
				t.Errorf("dir mtime %v", fi.ModTime())
			}
			if fi, err := dst.Stat("/dst/data/dir/empty"); err != nil || !fi.IsDir() {
				t.Errorf("empty dir: %v", err)
			}
		})
	}
}

// TestKubectlCopyIn extracts an archive as kubectl cp makes it: relative
// names, no directory members.
func TestKubectlCopyIn(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for name, body := range map[string]string{"kubeconfig": "apiVersion: v1\n", "sub/dir/x": "x"} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: int64(len(body)), ModTime: then, Typeflag: tar.TypeReg})
		io.WriteString(tw, body)
	}
	tw.Close()
	f := newFS(t, vfs.Options{})
	must(t, f.MkdirAll("/tmp", 0o777))
	status, _, errs := run(f, 0, buf.Bytes(), "--no-same-permissions", "--no-same-owner", "-xmf", "-", "-C", "/tmp")
	if status != 0 || errs != "" {
		t.Fatalf("%d %q", status, errs)
	}
	if got := read(t, f, "/tmp/kubeconfig"); got != "apiVersion: v1\n" {
		t.Errorf("copied: %q", got)
	}
	if got := read(t, f, "/tmp/sub/dir/x"); got != "x" {
		t.Errorf("parents made: %q", got)
	}
	// Into a missing directory.
	status, _, errs = run(f, 0, buf.Bytes(), "-xmf", "-", "-C", "/nope")
	if status != 2 || errs != "tar: /nope: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now\n" {
		t.Errorf("missing -C: %d %q", status, errs)
	}
}

func TestList(t *testing.T) {
	_, archive, _ := run(source(t), 0, nil, "cf", "-", "/data")
	status, out, _ := run(newFS(t, vfs.Options{}), 0, []byte(archive), "tf", "-")
	if status != 0 || out != "data/\ndata/dir/\ndata/dir/empty/\ndata/dir/file.txt\ndata/link\ndata/run.sh\n" {
		t.Errorf("tar tf: %d %q", status, out)
	}
	_, out, _ = run(newFS(t, vfs.Options{}), 0, []byte(archive), "-tvf", "-", "data/dir/file.txt", "data/link")
	// "user/group size" is 19 wide, as GNU tar pads it.
	want := "-rw-r----- app/app           6 2020-05-06 07:08 data/dir/file.txt\n" +
		"lrwxrwxrwx root/root         0 2026-11-24 10:00 data/link -> dir/file.txt\n"
	if out != want {
		t.Errorf("tar tvf:\n%s\nwant:\n%s", out, want)
	}
}

func TestErrors(t *testing.T) {
	f := newFS(t, vfs.Options{ReadOnlyRoot: true})
	must(t, f.Mount("/dev", vfs.NewVolume(), "", false))
	_, nested, _ := run(source(t), 0, nil, "cf", "-", "/data/run.sh")
	_, archive, _ := run(source(t), 0, nil, "cf", "-", "-C", "/data", "run.sh")
	tests := []struct {
		name   string
		stdin  string
		args   []string
		status int
		stderr string
	}{
		{"missing path", "", []string{"cf", "-", "/nope"}, 2,
			"tar: Removing leading `/' from member names\ntar: /nope: Cannot stat: No such file or directory\ntar: Exiting with failure status due to previous errors\n"},
		{"gzip", "", []string{"czf", "-", "/etc"}, 2,
			"tar (child): gzip: Cannot exec: No such file or directory\ntar (child): Error is not recoverable: exiting now\ntar: Child returned status 2\ntar: Error is not recoverable: exiting now\n"},
		{"no mode", "", []string{"-f", "-"}, 2,
			"tar: You must specify one of the '-Acdtrux', '--delete' or '--test-label' options\nTry 'tar --help' or 'tar --usage' for more information.\n"},
		{"empty create", "", []string{"cf", "-"}, 2,
			"tar: Cowardly refusing to create an empty archive\nTry 'tar --help' or 'tar --usage' for more information.\n"},
		{"bad option", "", []string{"-xqf", "-"}, 2,
			"tar: invalid option -- 'q'\nTry 'tar --help' or 'tar --usage' for more information.\n"},
		{"not a tar", strings.Repeat("garbage\n", 100), []string{"xf", "-"}, 2,
			"tar: This does not look like a tar archive\ntar: Exiting with failure status due to previous errors\n"},
		{"read-only", archive, []string{"xf", "-", "-C", "/etc"}, 2,
			"tar: run.sh: Cannot open: Read-only file system\ntar: Exiting with failure status due to previous errors\n"},
		{"read-only parent", nested, []string{"xf", "-", "-C", "/etc"}, 2,
			"tar: data: Cannot mkdir: Read-only file system\ntar: data/run.sh: Cannot open: No such file or directory\ntar: Exiting with failure status due to previous errors\n"},
		{"not in archive", archive, []string{"tf", "-", "other"}, 2,
			"tar: other: Not found in archive\ntar: Exiting with failure status due to previous errors\n"},
		{"empty input", "", []string{"xf", "-"}, 0, ""},
		{"truncated", archive[:514], []string{"xf", "-", "-C", "/dev"}, 2,
			"tar: Unexpected EOF in archive\ntar: Error is not recoverable: exiting now\n"},
	}
	for _, tt := range tests {
		status, _, errs := run(f, 0, []byte(tt.stdin), tt.args...)
		if status != tt.status || errs != tt.stderr {
			t.Errorf("%s: status %d stderr %q, want %d %q", tt.name, status, errs, tt.status, tt.stderr)
		}
	}
}

func TestWindows(t *testing.T) {
	f := vfs.New(vfs.Options{Windows: true, Clock: fixedClock{now}})
	must(t, f.MkdirAll(`C:\app\conf`, 0o755))
	write(t, f, `C:\app\conf\Settings.json`, "{}", 0o644)
	status, archive, errs := run(f, 0, nil, "-cf", "-", `C:\app`)
	if status != 0 || errs != "tar: Removing leading `/' from member names\n" {
		t.Fatalf("%d %q", status, errs)
	}
	g := vfs.New(vfs.Options{Windows: true})
	must(t, g.MkdirAll(`C:\dst`, 0o755))
	if status, _, errs := run(g, 0, []byte(archive), "-xf", "-", "-C", `c:/dst`); status != 0 {
		t.Fatalf("%d %q", status, errs)
	}
	if got := read(t, g, `C:\DST\APP\CONF\settings.json`); got != "{}" {
		t.Errorf("windows round trip: %q", got)
	}
}
