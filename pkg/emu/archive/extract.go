package archive

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// dirTime is a directory whose mtime is set after its contents are in.
type dirTime struct {
	name string
	t    time.Time
}

// extract reads the archive and extracts (x) or lists (t) its members.
func (s *session) extract() int {
	fsys := s.p.Sys.FS
	if s.opts.mode == 'x' {
		if _, err := fsys.Stat(s.dir); err != nil {
			return s.fatal(fmt.Sprintf("%s: Cannot open: %s", s.dir, program.ErrorText(err, s.p.Sys.Windows)))
		}
	}
	in, closeIn, err := s.archiveReader()
	if err != nil {
		return s.fatal(fmt.Sprintf("%s: Cannot open: %s", s.opts.file, program.ErrorText(err, s.p.Sys.Windows)))
	}
	defer closeIn()
	tr := tar.NewReader(in)
	matched := make([]bool, len(s.opts.operands))
	var dirs []dirTime
	for first := true; ; first = false {
		if s.ctx.Err() != nil {
			return 2
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return s.readFailed(err, first)
		}
		name := s.safeName(hdr.Name)
		if !s.selected(name, matched) {
			continue
		}
		if s.opts.mode == 't' {
			s.list(hdr, name)
			continue
		}
		if s.opts.verbose {
			fmt.Fprintln(s.p.Stdout, name)
		}
		if err := s.extractOne(tr, hdr, name, &dirs); err != nil {
			return s.readFailed(err, false)
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		fsys.Chtimes(dirs[i].name, dirs[i].t)
	}
	for i, op := range s.opts.operands {
		if !matched[i] {
			fmt.Fprintf(s.p.Stderr, "tar: %s: Not found in archive\n", op.name)
			s.failed = true
		}
	}
	return 0
}

// readFailed ends a run on a bad archive.
func (s *session) readFailed(err error, first bool) int {
	if first && errors.Is(err, tar.ErrHeader) {
		fmt.Fprintln(s.p.Stderr, "tar: This does not look like a tar archive")
		s.failed = true
		return 0
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, tar.ErrHeader) {
		return s.fatal("Unexpected EOF in archive")
	}
	return s.fatal(fmt.Sprintf("%s: Cannot read: %s", s.archiveName(), program.ErrorText(err, s.p.Sys.Windows)))
}

func (s *session) archiveReader() (io.Reader, func() error, error) {
	if s.opts.file == "-" {
		return s.p.Stdin, func() error { return nil }, nil
	}
	f, err := s.p.Sys.FS.OpenFile(s.p.Sys.FS.Abs(s.p.Dir, s.opts.file), os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

// selected reports whether a member is asked for (all are when no names
// are given), marking the names that matched.
func (s *session) selected(name string, matched []bool) bool {
	if len(s.opts.operands) == 0 {
		return true
	}
	name = strings.TrimSuffix(name, "/")
	ok := false
	for i, op := range s.opts.operands {
		want := strings.TrimSuffix(op.name, "/")
		if name == want || strings.HasPrefix(name, want+"/") {
			matched[i], ok = true, true
		}
	}
	return ok
}

// extractOne makes one member on the FS. Problems with the member are
// reported and skipped; only a broken archive is returned.
func (s *session) extractOne(tr *tar.Reader, hdr *tar.Header, name string, dirs *[]dirTime) error {
	target := s.p.Sys.FS.Abs(s.dir, name)
	mode := hdr.FileInfo().Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	switch hdr.Typeflag {
	case tar.TypeDir:
		if s.makeDir(target, name, mode) && !s.opts.touch {
			*dirs = append(*dirs, dirTime{target, hdr.ModTime})
		}
		return nil
	case tar.TypeSymlink:
		s.makeSymlink(hdr, target, name)
		return nil
	case tar.TypeLink:
		return s.makeHardLink(hdr, target, name, mode)
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		s.warn(name, "Cannot mknod", syscall.EPERM)
		return nil
	}
	return s.makeFile(tr, hdr, target, name, mode)
}

// makeParents makes the missing directories above a member, as GNU tar
// does for archives without directory members.
func (s *session) makeParents(target, name string) {
	fsys := s.p.Sys.FS
	parent := fsys.Abs(target, "..")
	if _, err := fsys.Stat(parent); errors.Is(err, fs.ErrNotExist) {
		if err := fsys.MkdirAll(parent, 0o777); err != nil {
			s.warn(path.Dir(strings.TrimSuffix(name, "/")), "Cannot mkdir", err)
		}
	}
}

// clear removes what is in the way of a new member, as GNU tar unlinks
// an old file before extracting. A directory stays (and fails later).
func (s *session) clear(target string) {
	fsys := s.p.Sys.FS
	if fi, err := fsys.Lstat(target); err == nil && !fi.IsDir() {
		fsys.Remove(target)
	}
}

func (s *session) makeDir(target, name string, mode fs.FileMode) bool {
	fsys := s.p.Sys.FS
	fi, err := fsys.Stat(target)
	if err == nil && !fi.IsDir() {
		fsys.Remove(target)
		err = fs.ErrNotExist
	}
	if err != nil {
		s.makeParents(target, name)
		if err := fsys.Mkdir(target, mode.Perm()); err != nil && !errors.Is(err, fs.ErrExist) {
			s.warn(name, "Cannot mkdir", err)
			return false
		}
	}
	s.restore(target, name, mode, nil, false)
	return true
}

func (s *session) makeFile(r io.Reader, hdr *tar.Header, target, name string, mode fs.FileMode) error {
	fsys := s.p.Sys.FS
	s.clear(target)
	s.makeParents(target, name)
	f, err := fsys.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode.Perm())
	if err != nil {
		s.warn(name, "Cannot open", err)
		return nil
	}
	werr, rerr := copyData(f, r)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if rerr != nil {
		return rerr
	}
	if werr != nil {
		s.warn(name, "Cannot write", werr)
	}
	s.restore(target, name, mode, hdr, false)
	return nil
}

func (s *session) makeSymlink(hdr *tar.Header, target, name string) {
	fsys := s.p.Sys.FS
	s.clear(target)
	s.makeParents(target, name)
	if err := fsys.Symlink(hdr.Linkname, target); err != nil {
		s.warn(name, fmt.Sprintf("Cannot create symlink to '%s'", hdr.Linkname), err)
		return
	}
	if s.keepOwner() {
		s.chown(target, name, hdr, true)
	}
}

// makeHardLink copies the linked member's data: the FS has no hard links.
func (s *session) makeHardLink(hdr *tar.Header, target, name string, mode fs.FileMode) error {
	fsys := s.p.Sys.FS
	src := fsys.Abs(s.dir, s.safeName(hdr.Linkname))
	in, err := fsys.OpenFile(src, os.O_RDONLY, 0)
	if err != nil {
		s.warn(name, fmt.Sprintf("Cannot hard link to '%s'", hdr.Linkname), err)
		return nil
	}
	defer in.Close()
	fi, err := in.Stat()
	if err == nil {
		mode = fi.Mode() & mode
	}
	err = s.makeFile(readerOnly{in}, nil, target, name, mode)
	return err
}

// readerOnly hides a file's other methods.
type readerOnly struct{ io.Reader }

// restore sets what -p, --same-owner and (without -m) the mtime ask for.
// hdr is nil for a directory (its mtime is set at the end).
func (s *session) restore(target, name string, mode fs.FileMode, hdr *tar.Header, link bool) {
	fsys := s.p.Sys.FS
	if s.keepPerms() {
		if err := fsys.Chmod(target, mode); err != nil {
			s.warn(name, fmt.Sprintf("Cannot change mode to %s", modeString(mode)), err)
		}
	}
	if hdr == nil {
		return
	}
	if s.keepOwner() {
		s.chown(target, name, hdr, link)
	}
	if !s.opts.touch {
		if err := fsys.Chtimes(target, hdr.ModTime); err != nil {
			s.warn(name, "Cannot utime", err)
		}
	}
}

// chown gives an extracted member its archived owner when the FS can.
func (s *session) chown(target, name string, hdr *tar.Header, link bool) {
	type chowner interface {
		Chown(name string, uid, gid int64) error
		Lchown(name string, uid, gid int64) error
	}
	c, ok := s.p.Sys.FS.(chowner)
	if !ok {
		return
	}
	do := c.Chown
	if link {
		do = c.Lchown
	}
	if err := do(target, int64(hdr.Uid), int64(hdr.Gid)); err != nil {
		s.warn(name, fmt.Sprintf("Cannot change ownership to uid %d, gid %d", hdr.Uid, hdr.Gid), err)
	}
}

// copyData copies a member's data, telling write errors (the FS) from
// read errors (the archive).
func copyData(w io.Writer, r io.Reader) (werr, rerr error) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 && werr == nil {
			_, werr = w.Write(buf[:n])
		}
		if err == io.EOF {
			return werr, nil
		}
		if err != nil {
			return werr, err
		}
	}
}
