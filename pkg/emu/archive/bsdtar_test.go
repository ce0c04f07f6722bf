package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
	"github.com/winkube/winkube/pkg/windows"
)

func winSys() (*program.Sys, *wintest.FS) {
	sys := wintest.Sys(map[string]program.Main{"tar": BSDTar})
	return sys, sys.FS.(*wintest.FS)
}

func bsd(sys *program.Sys, stdin string, args ...string) (string, string, int) {
	return wintest.Run(context.Background(), sys, BSDTar, stdin, args...)
}

func members(t *testing.T, archive string) []string {
	t.Helper()
	if len(archive)%10240 != 0 {
		t.Errorf("archive of %d bytes, not in 10240-byte blocks", len(archive))
	}
	var names []string
	tr := tar.NewReader(strings.NewReader(archive))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, hdr.Name)
	}
}

// kubectl cp from a Windows pod runs "tar cf - C:/data" (its remote
// paths have / for \); bsdtar strips the drive letter, as it says, and
// kubectl cp into another pod runs "tar -xmf - -C <dir>".
func TestBSDTarKubectlCp(t *testing.T) {
	src, srcFS := winSys()
	srcFS.Put(`C:\data\a.txt`, "alpha")
	srcFS.Put(`C:\data\sub\b.txt`, "beta")
	archive, errOut, code := bsd(src, "", "tar", "cf", "-", "C:/data")
	if errOut != "tar: Removing leading drive letter from member names\n" || code != 0 {
		t.Fatalf("cf: %q %d", errOut, code)
	}
	if got := strings.Join(members(t, archive), " "); got != "data/ data/a.txt data/sub/ data/sub/b.txt" {
		t.Errorf("members: %s", got)
	}
	dst, dstFS := winSys()
	dstFS.MkdirAll(`C:\out`, 0o777)
	later := 90 * time.Minute
	dst.Clock.(*wintest.Clock).After(later)
	out, errOut, code := bsd(dst, archive, "tar", "-xmf", "-", "-C", "C:/out")
	if out != "" || errOut != "" || code != 0 {
		t.Fatalf("xmf: %q %q %d", out, errOut, code)
	}
	for name, want := range map[string]string{`C:\out\data\a.txt`: "alpha", `C:\OUT\Data\sub\B.TXT`: "beta"} {
		if got, ok := dstFS.Get(name); !ok || got != want {
			t.Errorf("%s: %q %v", name, got, ok)
		}
	}
	fi, _ := dstFS.Stat(`C:\out\data\a.txt`)
	if !fi.ModTime().Equal(dst.Clock.Now()) {
		t.Errorf("-m: mtime %v, want the time of extraction %v", fi.ModTime(), dst.Clock.Now())
	}
	// Without -m the archived mtime stays; -v lists to stderr.
	_, errOut, _ = bsd(dst, archive, "tar.exe", "-xvf", "-", "-C", `C:\out2`)
	if errOut != "tar.exe: could not chdir to 'C:\\out2'\n\n" {
		t.Errorf("missing -C: %q", errOut)
	}
	dstFS.MkdirAll(`C:\out2`, 0o777)
	_, errOut, code = bsd(dst, archive, "tar.exe", "-xvf", "-", "-C", `C:\out2`)
	if errOut != "x data/\nx data/a.txt\nx data/sub/\nx data/sub/b.txt\n" || code != 0 {
		t.Errorf("-xv: %q %d", errOut, code)
	}
	fi, _ = dstFS.Stat(`C:\out2\data\a.txt`)
	if srcFi, _ := srcFS.Stat(`C:\data\a.txt`); !fi.ModTime().Equal(srcFi.ModTime().Truncate(time.Second)) {
		t.Errorf("mtime %v, want %v", fi.ModTime(), srcFi.ModTime())
	}
	// A path without the drive ("/data"): only the '/' goes.
	_, errOut, _ = bsd(src, "", "tar", "cf", "-", "/data/a.txt")
	if errOut != "tar: Removing leading '/' from member names\n" {
		t.Errorf("/data: %q", errOut)
	}
	// Relative to the working directory, nothing is said.
	archive, errOut, _ = bsd(src, "", "tar", "cf", "-", `data\sub`)
	if got := strings.Join(members(t, archive), " "); errOut != "" || got != "data/sub/ data/sub/b.txt" {
		t.Errorf("relative: %q %s", errOut, got)
	}
}

// kubectl cp to a pod: its own archive (names relative to the
// destination's directory), with and without --no-preserve.
func TestBSDTarKubectlCpTo(t *testing.T) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	tw.WriteHeader(&tar.Header{Name: "f.txt", Mode: 0o644, Size: 2, Typeflag: tar.TypeReg, ModTime: time.Unix(1e9, 0)})
	tw.Write([]byte("hi"))
	tw.Close()
	for _, argv := range [][]string{
		{"tar", "-xmf", "-", "-C", "C:/tmp"},
		{"tar", "--no-same-permissions", "--no-same-owner", "-xmf", "-", "-C", "C:/tmp"},
	} {
		sys, fsys := winSys()
		fsys.MkdirAll(`C:\tmp`, 0o777)
		if out, errOut, code := bsd(sys, b.String(), argv...); out != "" || errOut != "" || code != 0 {
			t.Errorf("%q: %q %q %d", argv, out, errOut, code)
		}
		if got, _ := fsys.Get(`C:\tmp\f.txt`); got != "hi" {
			t.Errorf("%q: C:\\tmp\\f.txt is %q", argv, got)
		}
	}
}

func TestBSDTarErrors(t *testing.T) {
	usage := "Usage:\n  List:    tar -tf <archive-filename>\n  Extract: tar -xf <archive-filename>\n" +
		"  Create:  tar -cf <archive-filename> [filenames...]\n  Help:    tar --help\n"
	version := "bsdtar 3.3.2 - libarchive 3.3.2 zlib/1.2.5.f-ipp \n"
	if sys, _ := winSys(); sys.OS.Build >= windows.Build2022 {
		version = "bsdtar 3.5.2 - libarchive 3.5.2 zlib/1.2.5.f-ipp \n"
	}
	for _, tc := range []struct {
		args        []string
		stdin       string
		out, errOut string
		code        int
	}{
		{args: []string{"tar.exe", "-xf", "x"}, errOut: "tar.exe: Error opening archive: Failed to open 'x'\n", code: 1},
		{args: []string{"tar", "cf", `C:\x.tar`, "x"}, errOut: "tar: x: Cannot stat: No such file or directory\ntar: Error exit delayed from previous errors.\n", code: 1},
		{args: []string{"tar"}, errOut: "tar: Must specify one of -c, -r, -t, -u, -x\n", code: 1},
		{args: []string{"tar", "-cx"}, errOut: "tar: Can't specify both -x and -c\n", code: 1},
		{args: []string{"tar", "-cf", "-"}, errOut: "tar: no files or directories specified\n", code: 1},
		{args: []string{"tar", "--bogus"}, errOut: "tar: Option --bogus is not supported\n" + usage, code: 1},
		{args: []string{"tar", "--no-same", "-x"}, errOut: "tar: Ambiguous option --no-same (matches --no-same-permissions and --no-same-owner)\n" + usage, code: 1},
		{args: []string{"tar", "-Q"}, errOut: usage, code: 1},
		{args: []string{"tar", "-x", "-f"}, errOut: "tar: Option -f requires an argument\n" + usage, code: 1},
		{args: []string{"tar", "xf"}, errOut: "tar: Option f requires an argument\n" + usage, code: 1},
		{args: []string{"tar", "-xf", "-"}, stdin: "this is no archive", errOut: "tar: Error opening archive: Unrecognized archive format\n", code: 1},
		{args: []string{"tar", "-tf", "-"}},
		{args: []string{"tar", "-x"}, errOut: "tar: Error opening archive: Failed to open '\\\\.\\tape0'\n", code: 1},
		{args: []string{"tar", "--version"}, out: version},
	} {
		sys, _ := winSys()
		out, errOut, code := bsd(sys, tc.stdin, tc.args...)
		if out != tc.out || errOut != tc.errOut || code != tc.code {
			t.Errorf("%q: got %q %q %d\nwant %q %q %d", tc.args, out, errOut, code, tc.out, tc.errOut, tc.code)
		}
	}
}

// A file archive: cf to a C:\ path, tf lists it, xf a member not in it.
func TestBSDTarFile(t *testing.T) {
	sys, fsys := winSys()
	fsys.Put(`C:\app\conf.ini`, "k=v")
	sys.FS.MkdirAll(`C:\app\empty`, 0o777)
	if _, errOut, code := bsd(sys, "", "tar.exe", "-c", "-f", `C:\a.tar`, "-C", `C:\app`, "."); errOut != "" || code != 0 {
		t.Fatalf("-c -C: %q %d", errOut, code)
	}
	out, _, _ := bsd(sys, "", "tar.exe", "-tf", `C:\a.tar`)
	if out != "./\n./conf.ini\n./empty/\n" {
		t.Errorf("-t: %q", out)
	}
	_, errOut, code := bsd(sys, "", "tar.exe", "-xf", `C:\a.tar`, "nope")
	if errOut != "tar.exe: nope: Not found in archive\ntar.exe: Error exit delayed from previous errors.\n" || code != 1 {
		t.Errorf("missing member: %q %d", errOut, code)
	}
	out, _, _ = bsd(sys, "", "tar.exe", "-xOf", `C:\a.tar`, "./conf.ini")
	if out != "k=v" {
		t.Errorf("-O: %q", out)
	}
}
