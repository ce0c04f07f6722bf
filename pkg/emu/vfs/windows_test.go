package vfs

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
)

func TestAbsWindows(t *testing.T) {
	f := New(Options{Windows: true})
	tests := []struct{ dir, name, want string }{
		{`C:\`, `a`, `C:\a`},
		{`C:\a\b`, `..\c`, `C:\a\c`},
		{`C:\a`, `c:/x/./y/`, `C:\x\y`},
		{`C:\a`, `\x\y`, `C:\x\y`},
		{`C:\a`, `/x/y`, `C:\x\y`},
		{`C:\a`, `b/c\d`, `C:\a\b\c\d`},
		{`C:\a`, `..\..\..`, `C:\`},
		{`C:\a`, `C:b`, `C:\a\b`},
		{`C:\a`, `d:\x`, `D:\x`},
		{`C:\a`, ``, `C:\a`},
		{`/a`, `b`, `C:\a\b`},
	}
	for _, tt := range tests {
		if got := f.Abs(tt.dir, tt.name); got != tt.want {
			t.Errorf("Abs(%q, %q) = %q, want %q", tt.dir, tt.name, got, tt.want)
		}
	}
}

func TestWindowsNames(t *testing.T) {
	f := New(Options{Windows: true})
	mustOK(t, f.MkdirAll(`C:\Program Files\App`, 0o755))
	writeFile(t, f, `C:\Program Files\App\Config.TXT`, "v1")
	// Every spelling of the same file.
	for _, name := range []string{
		`C:\Program Files\App\Config.TXT`,
		`c:\program files\app\config.txt`,
		`c:/PROGRAM FILES/app/CONFIG.txt`,
		`\Program Files\App\config.txt`,
		`/program files/app/config.txt`,
	} {
		if got, err := tryRead(f, name); err != nil || got != "v1" {
			t.Errorf("read %s = %q, %v", name, got, err)
		}
	}
	// Writing under another case replaces the same file and keeps the
	// name it was created with.
	writeFile(t, f, `C:\PROGRAM FILES\APP\CONFIG.TXT`, "v2")
	entries, err := f.ReadDir(`c:\program files\app`)
	mustOK(t, err)
	if len(entries) != 1 || entries[0].Name() != "Config.TXT" {
		t.Errorf("ReadDir = %v", entries)
	}
	if got := readFile(t, f, `C:\Program Files\App\Config.TXT`); got != "v2" {
		t.Errorf("after rewrite: %q", got)
	}
	if err := f.Mkdir(`c:\PROGRAM files`, 0o755); errno(t, err) != syscall.EEXIST {
		t.Errorf("mkdir in other case: %v", err)
	}
	// A case-only rename changes the stored name.
	mustOK(t, f.Rename(`C:\Program Files\App\Config.TXT`, `C:\Program Files\App\config.txt`))
	entries, _ = f.ReadDir(`C:\Program Files\App`)
	if entries[0].Name() != "config.txt" {
		t.Errorf("after case rename: %s", entries[0].Name())
	}
	// Files read as rw-rw-rw- (or r--r--r-- when read-only), dirs rwxrwxrwx.
	if fi, _ := f.Stat(`C:\Program Files\App\config.txt`); fi.Mode() != 0o666 {
		t.Errorf("file mode %v", fi.Mode())
	}
	mustOK(t, f.Chmod(`C:\Program Files\App\config.txt`, 0o444))
	if fi, _ := f.Stat(`C:\Program Files\App\config.txt`); fi.Mode() != 0o444 {
		t.Errorf("read-only file mode %v", fi.Mode())
	}
	if fi, _ := f.Stat(`C:\`); !fi.IsDir() || fi.Name() != `\` {
		t.Errorf("stat C:\\ = %v %q", fi.Mode(), fi.Name())
	}
}

func TestWindowsErrors(t *testing.T) {
	f := New(Options{Windows: true})
	mustOK(t, f.MkdirAll(`C:\dir\sub`, 0o755))
	writeFile(t, f, `C:\dir\file`, "x")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"missing file", statErr(f, `C:\dir\none.txt`), "The system cannot find the file specified."},
		{"missing dir", statErr(f, `C:\nodir\none.txt`), "The system cannot find the path specified."},
		{"other drive", statErr(f, `D:\dir`), "The system cannot find the path specified."},
		{"exists", f.Mkdir(`C:\DIR`, 0o755), "Cannot create a file when that file already exists."},
		{"not empty", f.Remove(`C:\dir`), "The directory is not empty."},
		{"open dir for write", openErr(f, `C:\dir`, os.O_WRONLY), "Access is denied."},
		{"under file", statErr(f, `C:\dir\file\x`), "The system cannot find the path specified."},
		{"list a file", func() error { _, err := f.ReadDir(`C:\dir\file`); return err }(), "The directory name is invalid."},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, fs.ErrNotExist) && errno(t, tt.err) == 0 {
			t.Errorf("%s: no error", tt.name)
		}
		if got := program.ErrorText(tt.err, true); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	// A read-only file refuses writes and deletion.
	mustOK(t, f.Chmod(`C:\dir\file`, 0o444))
	for _, err := range []error{openErr(f, `C:\dir\file`, os.O_WRONLY), f.Remove(`C:\dir\file`)} {
		if got := program.ErrorText(err, true); got != "Access is denied." {
			t.Errorf("read-only file: %q", got)
		}
	}
	// NUL is in every directory and swallows writes.
	writeFile(t, f, `C:\dir\nul`, "x")
	writeFile(t, f, `NUL`, "x")
	if _, err := f.Lstat(`C:\dir\nul`); err != nil {
		t.Errorf("stat NUL: %v", err)
	}
}

func TestWindowsMount(t *testing.T) {
	v := NewVolume()
	mustOK(t, v.WriteFile("Data.txt", []byte("d"), 0o644))
	f := New(Options{Windows: true})
	mustOK(t, f.Mount("/mnt/vol", v, "", false))
	g := New(Options{Windows: true})
	mustOK(t, g.Mount(`C:\Mnt\Vol`, v, "", true))
	for _, fsys := range []*FS{f, g} {
		if got := readFile(t, fsys, `c:\MNT\vol\data.TXT`); got != "d" {
			t.Errorf("read through mount: %q", got)
		}
	}
	err := tryWrite(g, `C:\mnt\vol\x`, "x")
	if errno(t, err) != syscall.EROFS || program.ErrorText(err, true) != "Access is denied." {
		t.Errorf("write to read-only mount: %v", err)
	}
}

func statErr(f *FS, name string) error {
	_, err := f.Stat(name)
	return err
}

func openErr(f *FS, name string, flag int) error {
	_, err := f.OpenFile(name, flag, 0o644)
	return err
}
