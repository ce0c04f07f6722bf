package archive

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/windows"
)

// BSDTar is Windows' tar.exe (C:\Windows\System32\tar.exe since 1803):
// libarchive's bsdtar, with its option parser (old-style bundles, short
// and long options by unique prefix, options ending at the first
// operand), its messages prefixed by the name it was invoked as ("tar"
// from kubectl exec, "tar.exe" from PowerShell), and exit status 1 for
// any error. It creates ustar archives (pax restricted) in 10240-byte
// blocks, extracts and lists plain and gzip archives.
var BSDTar program.Main = bsdtarMain

// bsdShort are bsdtar's short options; a ':' follows those taking an
// argument.
const bsdShort = "aBb:C:cf:HhI:JjkLlmnOoPpqrSs:T:tUuvW:wX:xyZz"

// bsdLong are bsdtar's long options (libarchive 3.x's table) and their
// short equivalents; those without one get a private byte (upper half).
var bsdLong = []struct {
	name     string
	required bool
	equiv    byte
}{
	{"absolute-paths", false, 'P'}, {"append", false, 'r'}, {"acls", false, 0x80}, {"auto-compress", false, 'a'},
	{"b64encode", false, 0x80}, {"block-size", true, 'b'}, {"blocking-factor", true, 'b'}, {"bunzip2", false, 'j'},
	{"bzip", false, 'j'}, {"bzip2", false, 'j'}, {"cd", true, 'C'}, {"check-links", false, 0x80}, {"chroot", false, 0x80},
	{"clear-nochange-fflags", false, 0x80}, {"compress", false, 'Z'}, {"confirmation", false, 'w'}, {"create", false, 'c'},
	{"dereference", false, 'L'}, {"directory", true, 'C'}, {"disable-copyfile", false, 0x80}, {"exclude", true, 0x81},
	{"exclude-from", true, 'X'}, {"extract", false, 'x'}, {"fast-read", false, 'q'}, {"fflags", false, 0x80},
	{"file", true, 'f'}, {"files-from", true, 'T'}, {"format", true, 0x82}, {"gid", true, 0x80}, {"gname", true, 0x80},
	{"grzip", false, 0x83}, {"gunzip", false, 'z'}, {"gzip", false, 'z'}, {"help", false, 0x84},
	{"hfsCompression", false, 0x80}, {"ignore-zeros", false, 0x80}, {"include", true, 0x81}, {"insecure", false, 'P'},
	{"interactive", false, 'w'}, {"keep-newer-files", false, 0x80}, {"keep-old-files", false, 'k'}, {"list", false, 't'},
	{"lrzip", false, 0x83}, {"lz4", false, 0x83}, {"lzip", false, 0x83}, {"lzma", false, 0x83}, {"lzop", false, 0x83},
	{"mac-metadata", false, 0x80}, {"modification-time", false, 'm'}, {"newer", true, 0x80}, {"newer-ctime", true, 0x80},
	{"newer-ctime-than", true, 0x80}, {"newer-mtime", true, 0x80}, {"newer-mtime-than", true, 0x80},
	{"newer-than", true, 0x80}, {"no-acls", false, 0x80}, {"no-fflags", false, 0x80}, {"no-mac-metadata", false, 0x80},
	{"no-recursion", false, 'n'}, {"no-same-owner", false, 0x80}, {"no-same-permissions", false, 0x80},
	{"no-xattr", false, 0x80}, {"no-xattrs", false, 0x80}, {"nodump", false, 0x80},
	{"nopreserveHFSCompression", false, 0x80}, {"norecurse", false, 'n'}, {"null", false, 0x80},
	{"numeric-owner", false, 0x80}, {"older", true, 0x80}, {"older-ctime", true, 0x80}, {"older-ctime-than", true, 0x80},
	{"older-mtime", true, 0x80}, {"older-mtime-than", true, 0x80}, {"older-than", true, 0x80},
	{"one-file-system", false, 0x80}, {"options", true, 0x80}, {"passphrase", true, 0x80}, {"posix", false, 0x80},
	{"preserve-permissions", false, 'p'}, {"read-full-blocks", false, 'B'}, {"same-owner", false, 0x80},
	{"same-permissions", false, 'p'}, {"strip-components", true, 0x81}, {"to-stdout", false, 'O'},
	{"totals", false, 0x80}, {"uid", true, 0x80}, {"uname", true, 0x80}, {"uncompress", false, 'Z'}, {"unlink", false, 'U'},
	{"unlink-first", false, 'U'}, {"update", false, 'u'}, {"use-compress-program", true, 0x83}, {"uuencode", false, 0x83},
	{"verbose", false, 'v'}, {"version", false, 0x85}, {"xattrs", false, 0x80}, {"xz", false, 'J'}, {"zstd", false, 0x83},
}

// bsdDefaultTape is where bsdtar reads and writes without -f (or $TAPE).
const bsdDefaultTape = `\\.\tape0`

type bsdSession struct {
	ctx      context.Context
	p        *program.Proc
	prog     string
	mode     byte
	file     string
	dir      string // -C
	verbose  bool
	touch    bool // -m
	gzip     bool
	absolute bool // -P
	deref    bool // -L, -h
	noRecur  bool // -n
	toStdout bool // -O
	keepOld  bool // -k
	names    []string
	warned   bool // a leading '/' or drive letter was reported
	status   int
	fatal    bool // lafe_errc ended the run
}

func bsdtarMain(ctx context.Context, p *program.Proc) int {
	prog := p.Args[0]
	if k := strings.LastIndexAny(prog, `\/`); k >= 0 {
		prog = prog[k+1:]
	}
	s := &bsdSession{ctx: ctx, p: p, prog: prog}
	if v := p.Getenv("TAPE"); v != "" {
		s.file = v
	} else {
		s.file = bsdDefaultTape
	}
	code, done := s.parse(p.Args[1:])
	if done {
		return code
	}
	switch s.mode {
	case 'c':
		s.create()
	case 'x', 't':
		s.read()
	}
	if s.status != 0 && !s.fatal {
		s.warnf("Error exit delayed from previous errors.")
	}
	return s.status
}

// warnf is lafe_warnc: "prog: message" on stderr.
func (s *bsdSession) warnf(format string, a ...any) {
	fmt.Fprintf(s.p.Stderr, "%s: %s\n", s.prog, fmt.Sprintf(format, a...))
}

// fatalf is lafe_errc: the message, and exit status 1 at once.
func (s *bsdSession) fatalf(format string, a ...any) {
	s.warnf(format, a...)
	s.status, s.fatal = 1, true
}

// warnErr is lafe_warnc with an errno: the CRT's strerror follows.
func (s *bsdSession) warnErr(err error, format string, a ...any) {
	fmt.Fprintf(s.p.Stderr, "%s: %s: %s\n", s.prog, fmt.Sprintf(format, a...), program.ErrorText(err, false))
}

func (s *bsdSession) usage() (int, bool) {
	w := s.p.Stderr
	fmt.Fprintf(w, "Usage:\n  List:    %s -tf <archive-filename>\n  Extract: %s -xf <archive-filename>\n", s.prog, s.prog)
	fmt.Fprintf(w, "  Create:  %s -cf <archive-filename> [filenames...]\n  Help:    %s --help\n", s.prog, s.prog)
	return 1, true
}

func (s *bsdSession) version() string {
	if s.p.Sys.OS.Build >= windows.Build2022 {
		return "bsdtar 3.5.2 - libarchive 3.5.2 zlib/1.2.5.f-ipp "
	}
	return "bsdtar 3.3.2 - libarchive 3.3.2 zlib/1.2.5.f-ipp "
}

// parse is bsdtar_getopt and the checks after it; done says the run
// ended (usage, --version) with code.
func (s *bsdSession) parse(args []string) (int, bool) {
	k := 0
	next := func() (string, bool) {
		if k >= len(args) {
			return "", false
		}
		k++
		return args[k-1], true
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		bundle := args[0]
		k = 1
		for j := 0; j < len(bundle); j++ {
			c := bundle[j]
			pos := strings.IndexByte(bsdShort, c)
			if pos < 0 || c == ':' {
				return s.usage()
			}
			arg := ""
			if pos+1 < len(bsdShort) && bsdShort[pos+1] == ':' {
				var ok bool
				if arg, ok = next(); !ok {
					s.warnf("Option %c requires an argument", c)
					return s.usage()
				}
			}
			if code, done := s.apply(c, arg); done {
				return code, done
			}
		}
	}
	for k < len(args) {
		word := args[k]
		if !strings.HasPrefix(word, "-") {
			break
		}
		k++
		if word == "--" {
			break
		}
		if strings.HasPrefix(word, "--") {
			c, arg, ok := s.long(word[2:], next)
			if !ok {
				return s.usage()
			}
			if code, done := s.apply(c, arg); done {
				return code, done
			}
			continue
		}
		for j := 1; j < len(word); j++ {
			c := word[j]
			pos := strings.IndexByte(bsdShort, c)
			if pos < 0 || c == ':' {
				return s.usage()
			}
			arg := ""
			if pos+1 < len(bsdShort) && bsdShort[pos+1] == ':' {
				if arg = word[j+1:]; arg == "" {
					var ok bool
					if arg, ok = next(); !ok {
						s.warnf("Option -%c requires an argument", c)
						return s.usage()
					}
				}
				j = len(word)
			}
			if code, done := s.apply(c, arg); done {
				return code, done
			}
		}
	}
	s.names = args[k:]
	if s.mode == 0 {
		s.warnf("Must specify one of -c, -r, -t, -u, -x")
		return 1, true
	}
	return 0, false
}

// long matches a long option by unique prefix.
func (s *bsdSession) long(word string, next func() (string, bool)) (byte, string, bool) {
	name, arg, hasArg := strings.Cut(word, "=")
	var match, match2 *struct {
		name     string
		required bool
		equiv    byte
	}
	for k := range bsdLong {
		o := &bsdLong[k]
		if strings.HasPrefix(o.name, name) && name != "" {
			match2, match = match, o
			if o.name == name {
				match2 = nil
				break
			}
		}
	}
	switch {
	case match == nil:
		s.warnf("Option --%s is not supported", word)
		return 0, "", false
	case match2 != nil:
		s.warnf("Ambiguous option --%s (matches --%s and --%s)", word, match.name, match2.name)
		return 0, "", false
	case match.required && !hasArg:
		var ok bool
		if arg, ok = next(); !ok {
			s.warnf("Option --%s requires an argument", match.name)
			return 0, "", false
		}
	case !match.required && hasArg:
		s.warnf("Option --%s does not allow an argument", match.name)
		return 0, "", false
	}
	if match.equiv >= 0x83 && match.equiv != 0x84 && match.equiv != 0x85 {
		return 0x83, match.name, true
	}
	return match.equiv, arg, true
}

// apply sets one option.
func (s *bsdSession) apply(c byte, arg string) (int, bool) {
	switch c {
	case 'c', 'x', 't', 'r', 'u':
		if s.mode != 0 && s.mode != c {
			s.warnf("Can't specify both -%c and -%c", c, s.mode)
			return 1, true
		}
		s.mode = c
		if c == 'r' || c == 'u' {
			return s.notEmulated("-" + string(c))
		}
	case 'f':
		s.file = arg
	case 'C':
		s.dir = arg
	case 'v':
		s.verbose = true
	case 'm':
		s.touch = true
	case 'z':
		s.gzip = true
	case 'P':
		s.absolute = true
	case 'L', 'h':
		s.deref = true
	case 'n':
		s.noRecur = true
	case 'O':
		s.toStdout = true
	case 'k':
		s.keepOld = true
	case 'j', 'J', 'Z', 'y', 'a', 'T', 'X', 's', 'I', 'w', 0x81, 0x82:
		return s.notEmulated(fmt.Sprintf("-%c", c))
	case 0x83:
		return s.notEmulated("--" + arg)
	case 0x84:
		return s.notEmulated("--help")
	case 0x85:
		fmt.Fprintln(s.p.Stdout, s.version())
		return 0, true
	}
	return 0, false
}

// notEmulated ends a run that asks what the emulation does not follow.
func (s *bsdSession) notEmulated(what string) (int, bool) {
	fmt.Fprintf(s.p.Stderr, "winkube: %s %s is not emulated\n", s.prog, what)
	return 1, true
}

// stripName is bsdtar's edit_pathname without -P: a leading "//?/",
// drive letter and '/' (and "/../", "/./") are removed, reported once.
func (s *bsdSession) stripName(name string) string {
	if s.absolute {
		return name
	}
	for {
		before := name
		if len(name) >= 2 && name[1] == ':' && ('a' <= name[0] && name[0] <= 'z' || 'A' <= name[0] && name[0] <= 'Z') {
			name = name[2:]
			s.warnOnce("Removing leading drive letter from member names")
		}
		for len(name) > 0 && (name[0] == '/' || name[0] == '\\') {
			switch {
			case strings.HasPrefix(name[1:], "../") || strings.HasPrefix(name[1:], `..\`):
				name = name[3:]
			case strings.HasPrefix(name[1:], "./") || strings.HasPrefix(name[1:], `.\`):
				name = name[2:]
			default:
				name = name[1:]
			}
			s.warnOnce("Removing leading '/' from member names")
		}
		if name == before {
			return name
		}
	}
}

func (s *bsdSession) warnOnce(msg string) {
	if !s.warned {
		s.warned = true
		s.warnf("%s", msg)
	}
}

// chdir is bsdtar's do_chdir (the extra newline is bsdtar's).
func (s *bsdSession) chdir() (string, bool) {
	if s.dir == "" {
		return s.p.Dir, true
	}
	dir := s.p.Sys.FS.Abs(s.p.Dir, s.dir)
	if fi, err := s.p.Sys.FS.Stat(dir); err != nil || !fi.IsDir() {
		s.fatalf("could not chdir to '%s'\n", s.dir)
		return "", false
	}
	return dir, true
}

// create is tar_mode_c: a pax-restricted (ustar) archive, padded to
// 10240-byte blocks.
func (s *bsdSession) create() {
	if len(s.names) == 0 {
		s.fatalf("no files or directories specified")
		return
	}
	var out io.Writer = s.p.Stdout
	closeOut := func() error { return nil }
	if s.file != "-" {
		f, err := s.p.Sys.FS.OpenFile(s.p.Sys.FS.Abs(s.p.Dir, s.file), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			s.fatalf("Failed to open '%s'", s.file)
			return
		}
		out, closeOut = f, f.Close
	}
	var gz *gzip.Writer
	if s.gzip {
		gz = gzip.NewWriter(out)
		out = gz
	}
	cw := &countWriter{w: out}
	tw := tar.NewWriter(cw)
	dir, ok := s.chdir()
	if !ok {
		return
	}
	for k := 0; k < len(s.names); k++ {
		name := s.names[k]
		if name == "-C" && k+1 < len(s.names) { // write mode takes -C between names
			k++
			s.dir = s.names[k]
			if dir, ok = s.chdir(); !ok {
				return
			}
			continue
		}
		if err := s.add(tw, name, s.p.Sys.FS.Abs(dir, name), true); err != nil {
			s.warnErr(err, "Write error")
			s.status = 1
			return
		}
	}
	tw.Close()
	if pad := (recordSize - cw.n%recordSize) % recordSize; pad > 0 {
		cw.Write(make([]byte, pad))
	}
	if gz != nil {
		gz.Close()
	}
	closeOut()
}

// add archives a name and, unless -n, what is under it.
func (s *bsdSession) add(tw *tar.Writer, name, full string, top bool) error {
	fsys := s.p.Sys.FS
	stat := fsys.Lstat
	if s.deref {
		stat = fsys.Stat
	}
	fi, err := stat(full)
	if err != nil {
		s.warnErr(err, "%s: Cannot stat", name)
		s.status = 1
		return nil
	}
	link := ""
	if fi.Mode()&fs.ModeSymlink != 0 {
		link, _ = fsys.Readlink(full)
	}
	hdr, err := tar.FileInfoHeader(fi, link)
	if err != nil {
		return nil
	}
	member := s.stripName(strings.ReplaceAll(name, `\`, "/"))
	// Windows' disk reader gives files rw-rw-rw- and directories rwxrwxrwx.
	hdr.Mode = 0o666
	if fi.IsDir() {
		hdr.Mode = 0o777
		if !strings.HasSuffix(member, "/") {
			member += "/"
		}
	}
	hdr.Name, hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = member, 0, 0, "", ""
	hdr.Format = tar.FormatUSTAR
	hdr.ModTime = fi.ModTime().Truncate(1e9)
	hdr.AccessTime, hdr.ChangeTime = time.Time{}, time.Time{}
	if len(member) > 255 || hdr.Size >= 1<<33 {
		hdr.Format = tar.FormatPAX
	}
	if s.verbose {
		fmt.Fprintf(s.p.Stderr, "a %s\n", strings.TrimSuffix(member, "/"))
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if hdr.Typeflag == tar.TypeReg {
		f, err := fsys.OpenFile(full, os.O_RDONLY, 0)
		if err != nil {
			s.warnErr(err, "%s: Couldn't open", name)
			s.status = 1
			return nil
		}
		defer f.Close()
		if _, err := io.Copy(tw, io.LimitReader(f, hdr.Size)); err != nil {
			return err
		}
		return nil
	}
	if !fi.IsDir() || s.noRecur {
		return nil
	}
	entries, err := fsys.ReadDir(full)
	if err != nil {
		s.warnErr(err, "%s: Couldn't visit directory", name)
		s.status = 1
		return nil
	}
	for _, e := range entries {
		if s.ctx.Err() != nil {
			return s.ctx.Err()
		}
		if err := s.add(tw, strings.TrimRight(name, `/\`)+"/"+e.Name(), fsys.Abs(full, e.Name()), false); err != nil {
			return err
		}
	}
	return nil
}

// read is tar_mode_x and tar_mode_t: the archive is opened (plain or
// gzip, as libarchive detects), then -C is entered.
func (s *bsdSession) read() {
	var in io.Reader = s.p.Stdin
	if s.file != "-" {
		f, err := s.p.Sys.FS.OpenFile(s.p.Sys.FS.Abs(s.p.Dir, s.file), os.O_RDONLY, 0)
		if err != nil || isDir(f) {
			s.fatalf("Error opening archive: Failed to open '%s'", s.file)
			return
		}
		defer f.Close()
		in = f
	}
	br := bufio.NewReader(in)
	head, _ := br.Peek(512)
	var r io.Reader = br
	switch {
	case len(head) == 0: // an empty archive
		r = strings.NewReader("")
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		gz, err := gzip.NewReader(br)
		if err != nil {
			s.fatalf("Error opening archive: Unrecognized archive format")
			return
		}
		r = gz
	case len(head) < 512 || !validHeader(head):
		s.fatalf("Error opening archive: Unrecognized archive format")
		return
	}
	dir := ""
	if s.mode == 'x' {
		var ok bool
		if dir, ok = s.chdir(); !ok {
			return
		}
	}
	tr := tar.NewReader(r)
	matched := make([]bool, len(s.names))
	for {
		if s.ctx.Err() != nil {
			s.status = 1
			return
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			s.warnf("Truncated tar archive")
			s.status = 1
			break
		}
		if !s.selected(hdr.Name, matched) {
			continue
		}
		if s.mode == 't' {
			fmt.Fprintln(s.p.Stdout, hdr.Name)
			continue
		}
		s.extractOne(tr, hdr, dir)
	}
	for k, n := range s.names {
		if !matched[k] {
			s.warnf("%s: Not found in archive", n)
			s.status = 1
		}
	}
}

func isDir(f fs.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.IsDir()
}

// validHeader checks a ustar/gnu/v7 header's checksum.
func validHeader(b []byte) bool {
	var sum int64
	for k, c := range b[:512] {
		if 148 <= k && k < 156 {
			c = ' '
		}
		sum += int64(c)
	}
	field := strings.Trim(string(b[148:156]), " \x00")
	var want int64
	if _, err := fmt.Sscanf(field, "%o", &want); err != nil {
		return false
	}
	return sum == want
}

func (s *bsdSession) selected(name string, matched []bool) bool {
	if len(s.names) == 0 {
		return true
	}
	name = strings.TrimSuffix(name, "/")
	ok := false
	for k, n := range s.names {
		want := strings.TrimSuffix(strings.ReplaceAll(n, `\`, "/"), "/")
		if name == want || strings.HasPrefix(name, want+"/") {
			matched[k], ok = true, true
		}
	}
	return ok
}

// extractOne writes one member under dir, as archive_write_disk does
// with bsdtar's default flags (no '..', no absolute paths, mtimes kept
// unless -m).
func (s *bsdSession) extractOne(tr *tar.Reader, hdr *tar.Header, dir string) {
	fsys := s.p.Sys.FS
	name := s.stripName(hdr.Name)
	if name == "" {
		return
	}
	if s.verbose {
		fmt.Fprintf(s.p.Stderr, "x %s", name)
		defer fmt.Fprintln(s.p.Stderr)
	}
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." && !s.absolute {
			s.failMember(name, "Path contains '..'")
			return
		}
	}
	if s.toStdout {
		if hdr.Typeflag == tar.TypeReg {
			io.Copy(s.p.Stdout, tr)
		}
		return
	}
	target := fsys.Abs(dir, name)
	if _, err := fsys.Lstat(target); err == nil && s.keepOld {
		s.failMember(name, "Already exists")
		return
	}
	if parent := fsys.Abs(target, ".."); parent != target {
		if err := fsys.MkdirAll(parent, 0o777); err != nil {
			s.failMember(name, "Can't create '"+target+"'")
			return
		}
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		if fi, err := fsys.Stat(target); err != nil || !fi.IsDir() {
			if err := fsys.Mkdir(target, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
				s.failMember(name, "Can't create '"+target+"'")
				return
			}
		}
	case tar.TypeSymlink:
		fsys.Remove(target)
		if err := fsys.Symlink(hdr.Linkname, target); err != nil {
			s.failMember(name, "Can't create '"+target+"'")
		}
		return
	case tar.TypeReg, tar.TypeRegA:
		if fi, err := fsys.Lstat(target); err == nil && !fi.IsDir() {
			fsys.Remove(target)
		}
		f, err := fsys.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			s.failMember(name, "Can't create '"+target+"'")
			return
		}
		_, werr := io.Copy(f, tr)
		f.Close()
		if werr != nil {
			s.failMember(name, "Write failed")
			return
		}
	default:
		return // links and devices: not made on Windows' disk
	}
	if !s.touch {
		fsys.Chtimes(target, hdr.ModTime)
	}
}

// failMember reports a member archive_write_disk refused.
func (s *bsdSession) failMember(name, why string) {
	if s.verbose {
		fmt.Fprintf(s.p.Stderr, ": %s", why)
	} else {
		s.warnf("%s: %s", name, why)
	}
	s.status = 1
}
