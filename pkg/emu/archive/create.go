package archive

import (
	"archive/tar"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// recordSize is GNU tar's default record (blocking factor 20): an
// archive's length is a multiple of it.
const recordSize = 20 * 512

// create writes an archive of the operands.
func (s *session) create() int {
	out, closeOut, err := s.archiveWriter()
	if err != nil {
		return s.fatal(fmt.Sprintf("%s: Cannot open: %s", s.opts.file, program.ErrorText(err, s.p.Sys.Windows)))
	}
	cw := &countWriter{w: out}
	tw := tar.NewWriter(cw)
	for _, op := range s.opts.operands {
		if s.ctx.Err() != nil {
			return 2
		}
		full := s.p.Sys.FS.Abs(op.dir, op.name)
		if err := s.add(tw, op.name, full, s.safeName(op.name), true); err != nil {
			return s.writeFailed(err)
		}
	}
	if err := tw.Close(); err != nil {
		return s.writeFailed(err)
	}
	if pad := (recordSize - cw.n%recordSize) % recordSize; pad > 0 {
		if _, err := cw.Write(make([]byte, pad)); err != nil {
			return s.writeFailed(err)
		}
	}
	if err := closeOut(); err != nil {
		return s.writeFailed(err)
	}
	return 0
}

// writeFailed ends a run whose archive cannot be written (a closed pipe).
func (s *session) writeFailed(err error) int {
	fmt.Fprintf(s.p.Stderr, "tar: %s: Cannot write: %s\n", s.archiveName(), errText(s, err))
	fmt.Fprintln(s.p.Stderr, "tar: Error is not recoverable: exiting now")
	return 2
}

func (s *session) archiveName() string {
	if s.opts.file == "-" {
		return "-"
	}
	return s.opts.file
}

// archiveWriter is where the archive goes: stdout or a file of the FS.
func (s *session) archiveWriter() (io.Writer, func() error, error) {
	if s.opts.file == "-" {
		return s.p.Stdout, func() error { return nil }, nil
	}
	f, err := s.p.Sys.FS.OpenFile(s.p.Sys.FS.Abs(s.p.Dir, s.opts.file), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

// add archives one name (shown as arg in messages) under member, and a
// directory's contents after it. Only archive write errors are returned;
// unreadable files are reported and skipped as GNU tar does.
func (s *session) add(tw *tar.Writer, arg, full, member string, top bool) error {
	fsys := s.p.Sys.FS
	stat := fsys.Lstat
	if s.opts.dereference {
		stat = fsys.Stat
	}
	fi, err := stat(full)
	if err != nil {
		s.warn(arg, "Cannot stat", err)
		return nil
	}
	link := ""
	if fi.Mode()&fs.ModeSymlink != 0 {
		if link, err = fsys.Readlink(full); err != nil {
			s.warn(arg, "Cannot readlink", err)
			return nil
		}
	}
	hdr, err := tar.FileInfoHeader(fi, link)
	if err != nil { // a socket: GNU tar skips those too
		fmt.Fprintf(s.p.Stderr, "tar: %s: socket ignored\n", arg)
		return nil
	}
	hdr.Name = member
	hdr.Format = tar.FormatGNU
	hdr.ModTime = fi.ModTime().Truncate(1e9)
	s.setOwner(hdr, fi)
	if fi.IsDir() && !strings.HasSuffix(hdr.Name, "/") {
		hdr.Name += "/"
	}
	if s.opts.verbose {
		fmt.Fprintln(s.listTo(), hdr.Name)
	}
	if hdr.Typeflag == tar.TypeReg {
		return s.addFile(tw, hdr, arg, full)
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if !fi.IsDir() {
		return nil
	}
	entries, err := fsys.ReadDir(full)
	if err != nil {
		s.warn(arg, "Cannot open", err)
		return nil
	}
	for _, e := range entries {
		if s.ctx.Err() != nil {
			return s.ctx.Err()
		}
		childArg := strings.TrimSuffix(arg, "/") + "/" + e.Name()
		if err := s.add(tw, childArg, fsys.Abs(full, e.Name()), hdr.Name+e.Name(), false); err != nil {
			return err
		}
	}
	return nil
}

// addFile writes a regular file's header and data. A file that shrank
// meanwhile is padded with zeros, as GNU tar does.
func (s *session) addFile(tw *tar.Writer, hdr *tar.Header, arg, full string) error {
	f, err := s.p.Sys.FS.OpenFile(full, os.O_RDONLY, 0)
	if err != nil {
		s.warn(arg, "Cannot open", err)
		return nil
	}
	defer f.Close()
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	n, err := io.Copy(tw, io.LimitReader(f, hdr.Size))
	if err != nil && isWriteErr(err) {
		return err
	}
	if n < hdr.Size {
		fmt.Fprintf(s.p.Stderr, "tar: %s: File shrank by %d bytes; padding with zeros\n", arg, hdr.Size-n)
		s.failed = true
		if _, err := tw.Write(make([]byte, hdr.Size-n)); err != nil {
			return err
		}
	}
	return nil
}

// isWriteErr tells the archive's write errors from a file's read errors.
func isWriteErr(err error) bool {
	_, ok := err.(*writeError)
	return ok
}

// countWriter counts what goes into the archive and marks its errors.
type countWriter struct {
	w io.Writer
	n int64
}

type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil {
		err = &writeError{err}
	}
	return n, err
}

func errText(s *session, err error) string {
	if we, ok := err.(*writeError); ok {
		err = we.err
	}
	return program.ErrorText(err, s.p.Sys.Windows)
}
