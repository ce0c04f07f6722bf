package sh

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"

	"mvdan.cc/sh/v3/interp"

	"github.com/winkube/winkube/pkg/emu/program"
)

// The handlers below are interp's only way to the filesystem: each maps
// to the container's FS, so nothing reaches the host's files.

func (s *shell) open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	switch path {
	case "/dev/stdout", "/dev/fd/1":
		return stream{hc.Stdout}, nil
	case "/dev/stderr", "/dev/fd/2":
		return stream{hc.Stderr}, nil
	}
	name := s.fs.Abs(hc.Dir, path)
	f, err := s.fs.OpenFile(name, flag, perm)
	if err != nil && name == "/dev/null" && errors.Is(err, fs.ErrNotExist) {
		return stream{io.Discard}, nil
	}
	if err != nil {
		return nil, s.openErr(path, flag, err)
	}
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		return f, nil
	}
	// interp copies any reader that is not an *os.File into a pipe of its
	// own that it never closes; handing it our pipe instead lets the copy
	// end when the redirection does.
	return pipeFrom(f)
}

// openErr words a failed redirection as ash: "can't create NAME: ..." or
// "can't open 'NAME': ...". interp prints a *fs.PathError as it is.
func (s *shell) openErr(path string, flag int, err error) error {
	text := program.ErrorText(err, false)
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		if errors.Is(err, fs.ErrNotExist) {
			text = "nonexistent directory"
		}
		return &fs.PathError{Op: s.inv.prog + ": can't create", Path: path, Err: errors.New(text)}
	}
	return &fs.PathError{Op: s.inv.prog + ": can't open", Path: "'" + path + "'", Err: errors.New(text)}
}

func (s *shell) stat(ctx context.Context, name string, follow bool) (fs.FileInfo, error) {
	name = s.fs.Abs(interp.HandlerCtx(ctx).Dir, name)
	if follow {
		return s.fs.Stat(name)
	}
	return s.fs.Lstat(name)
}

func (s *shell) readDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	return s.fs.ReadDir(s.fs.Abs(interp.HandlerCtx(ctx).Dir, name))
}

func (s *shell) access(ctx context.Context, name string, mode interp.AccessMode) error {
	info, err := s.fs.Stat(s.fs.Abs(interp.HandlerCtx(ctx).Dir, name))
	if err != nil {
		return err
	}
	if !permits(s.p.Sys.User, info, uint32(mode)) {
		return &fs.PathError{Op: "access", Path: name, Err: syscall.EACCES}
	}
	return nil
}

// permits reports whether user may access a file in mode (r=4, w=2, x=1)
// as Linux decides: root passes read and write checks and needs one x bit
// to execute (a directory is searchable).
func permits(u program.User, info fs.FileInfo, mode uint32) bool {
	perm := uint32(info.Mode().Perm())
	if u.UID == 0 {
		if mode&1 != 0 && !info.IsDir() && perm&0o111 == 0 {
			return false
		}
		return true
	}
	uid, gid := int64(0), int64(0)
	if o, ok := info.Sys().(program.FileOwner); ok {
		uid, gid = o.Owner()
	}
	switch {
	case uid == u.UID:
		perm >>= 6
	case gid == u.GID || contains(u.Groups, gid):
		perm >>= 3
	}
	return perm&mode == mode
}

func contains(list []int64, v int64) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// stream is one of the shell's own streams opened by name (/dev/stdout);
// closing it leaves the stream open.
type stream struct{ w io.Writer }

func (s stream) Read([]byte) (int, error)    { return 0, io.EOF }
func (s stream) Write(b []byte) (int, error) { return s.w.Write(b) }
func (s stream) Close() error                { return nil }
