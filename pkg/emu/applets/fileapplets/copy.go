package fileapplets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// target is where src goes: into dst when dst is a directory.
func target(p *program.Proc, src, dst string, many bool) (string, error) {
	info, err := p.Sys.FS.Stat(kit.Abs(p, dst))
	if err == nil && info.IsDir() {
		return path.Join(kit.Abs(p, dst), path.Base(strings.TrimRight(src, "/"))), nil
	}
	if many {
		return "", &fs.PathError{Op: "stat", Path: dst, Err: syscall.ENOTDIR}
	}
	return kit.Abs(p, dst), nil
}

// Cp is the cp applet.
func Cp(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "rRapdfinuvLPHT")
	if !ok {
		return 1
	}
	c := copier{p: p, recursive: o.Has('r') || o.Has('R') || o.Has('a'),
		preserve: o.Has('p') || o.Has('a'), links: o.Has('a') || o.Has('d') || o.Has('P')}
	if len(o.Args) < 2 {
		kit.Errorf(p, "missing file operand")
		return 1
	}
	srcs, dst := o.Args[:len(o.Args)-1], o.Args[len(o.Args)-1]
	status := 0
	for _, s := range srcs {
		to, err := target(p, s, dst, len(srcs) > 1)
		if err != nil {
			kit.Errorf(p, "'%s' is not a directory", dst)
			return 1
		}
		if !c.copy(s, kit.Abs(p, s), to) {
			status = 1
		}
	}
	return status
}

type copier struct {
	p                          *program.Proc
	recursive, preserve, links bool
}

// copy copies one tree; it reports errors itself.
func (c copier) copy(shown, src, dst string) bool {
	fsys := c.p.Sys.FS
	stat := fsys.Stat
	if c.links {
		stat = fsys.Lstat
	}
	info, err := stat(src)
	if err != nil {
		kit.Errorf(c.p, "can't stat '%s': %s", shown, kit.ErrText(err))
		return false
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		t, err := fsys.Readlink(src)
		if err == nil {
			fsys.Remove(dst)
			err = fsys.Symlink(t, dst)
		}
		if err != nil {
			kit.Errorf(c.p, "can't create symlink '%s': %s", dst, kit.ErrText(err))
			return false
		}
		return true
	case info.IsDir():
		if !c.recursive {
			kit.Errorf(c.p, "omitting directory '%s'", shown)
			return false
		}
		if strings.HasPrefix(dst+"/", src+"/") {
			kit.Errorf(c.p, "recursion detected, omitting directory '%s'", shown)
			return false
		}
		if err := fsys.Mkdir(dst, info.Mode().Perm()|0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			kit.Errorf(c.p, "can't create directory '%s': %s", dst, kit.ErrText(err))
			return false
		}
		entries, err := fsys.ReadDir(src)
		if err != nil {
			kit.Errorf(c.p, "can't open '%s': %s", shown, kit.ErrText(err))
			return false
		}
		ok := true
		for _, e := range entries {
			ok = c.copy(path.Join(shown, e.Name()), path.Join(src, e.Name()), path.Join(dst, e.Name())) && ok
		}
		fsys.Chmod(dst, info.Mode().Perm())
		c.keep(dst, info)
		return ok
	}
	if err := copyFile(fsys, src, dst, info.Mode().Perm()); err != nil {
		kit.Errorf(c.p, "can't create '%s': %s", dst, kit.ErrText(err))
		return false
	}
	c.keep(dst, info)
	return true
}

func (c copier) keep(dst string, info fs.FileInfo) {
	if !c.preserve {
		return
	}
	c.p.Sys.FS.Chmod(dst, info.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
	c.p.Sys.FS.Chtimes(dst, info.ModTime())
	if o, ok := info.Sys().(program.FileOwner); ok {
		if ch, ok := c.p.Sys.FS.(chowner); ok {
			uid, gid := o.Owner()
			ch.Chown(dst, uid, gid)
		}
	}
}

func copyFile(fsys program.FS, src, dst string, perm fs.FileMode) error {
	in, err := fsys.OpenFile(src, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := fsys.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// Mv is the mv applet.
func Mv(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "finvT")
	if !ok {
		return 1
	}
	if len(o.Args) < 2 {
		kit.Errorf(p, "missing file operand")
		return 1
	}
	srcs, dst := o.Args[:len(o.Args)-1], o.Args[len(o.Args)-1]
	status := 0
	for _, s := range srcs {
		to, err := target(p, s, dst, len(srcs) > 1)
		if err != nil {
			kit.Errorf(p, "'%s' is not a directory", dst)
			return 1
		}
		err = p.Sys.FS.Rename(kit.Abs(p, s), to)
		if errors.Is(err, syscall.EXDEV) {
			// Across volumes: copy, then remove.
			c := copier{p: p, recursive: true, preserve: true, links: true}
			if c.copy(s, kit.Abs(p, s), to) {
				err = p.Sys.FS.RemoveAll(kit.Abs(p, s))
			}
		}
		if err != nil {
			kit.Errorf(p, "can't rename '%s': %s", s, kit.ErrText(err))
			status = 1
		} else if o.Has('v') {
			fmt.Fprintf(p.Stdout, "'%s' -> '%s'\n", s, shown(s, dst, to != kit.Abs(p, dst)))
		}
	}
	return status
}

// shown is a destination as the user wrote it: dst, or dst/name when dst
// is a directory the source went into.
func shown(src, dst string, into bool) string {
	if !into {
		return dst
	}
	return strings.TrimRight(dst, "/") + "/" + path.Base(strings.TrimRight(src, "/"))
}

// Ln makes symlinks; a hard link (no -s) is a copy, as the FS has none.
func Ln(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "sfnvT")
	if !ok {
		return 1
	}
	args := o.Args
	if len(args) == 1 {
		args = append(args, ".")
	}
	if len(args) < 2 {
		kit.Errorf(p, "missing file operand")
		return 1
	}
	srcs, dst := args[:len(args)-1], args[len(args)-1]
	status := 0
	for _, s := range srcs {
		to := kit.Abs(p, dst)
		if info, err := p.Sys.FS.Stat(to); err == nil && info.IsDir() && !o.Has('n') {
			to = path.Join(to, path.Base(s))
		}
		if o.Has('f') {
			p.Sys.FS.Remove(to)
		}
		var err error
		if o.Has('s') {
			err = p.Sys.FS.Symlink(s, to)
		} else if _, err = p.Sys.FS.Lstat(to); err == nil {
			err = &fs.PathError{Op: "link", Path: to, Err: syscall.EEXIST}
		} else {
			info, serr := p.Sys.FS.Stat(kit.Abs(p, s))
			err = serr
			if err == nil {
				err = copyFile(p.Sys.FS, kit.Abs(p, s), to, info.Mode().Perm())
			}
		}
		if err != nil {
			kit.Errorf(p, "%s: %s", dst, kit.ErrText(err))
			status = 1
		}
	}
	return status
}

// chowner is the FS's optional Chown (pkg/emu/vfs has one).
type chowner interface {
	Chown(name string, uid, gid int64) error
}

// Chown is the chown applet.
func Chown(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "RhfLHPv")
	if !ok {
		return 1
	}
	if len(o.Args) < 2 {
		kit.Errorf(p, "missing operand")
		return 1
	}
	spec := o.Args[0]
	u, g, _ := strings.Cut(strings.Replace(spec, ".", ":", 1), ":")
	uid, gid := int64(-1), int64(-1)
	if u != "" {
		v, ok := kit.LookupID(p, "/etc/passwd", u)
		if !ok {
			kit.Errorf(p, "unknown user %s", u)
			return 1
		}
		uid = v
	}
	if g != "" {
		v, ok := kit.LookupID(p, "/etc/group", g)
		if !ok {
			kit.Errorf(p, "unknown group %s", g)
			return 1
		}
		gid = v
	}
	ch, _ := p.Sys.FS.(chowner)
	status := 0
	for _, n := range o.Args[1:] {
		walk(p, kit.Abs(p, n), o.Has('R'), func(name string) {
			var err error
			if ch != nil {
				err = ch.Chown(name, uid, gid)
			} else {
				_, err = p.Sys.FS.Lstat(name)
			}
			if err != nil {
				kit.Errorf(p, "%s: %s", n, kit.ErrText(err))
				status = 1
			}
		})
	}
	return status
}

// Chmod is the chmod applet.
func Chmod(ctx context.Context, p *program.Proc) int {
	args, recursive, ok := chmodFlags(p, p.Args[1:])
	if !ok {
		return 1
	}
	if len(args) < 2 {
		kit.Errorf(p, "missing operand")
		return 1
	}
	spec := args[0]
	status := 0
	for _, n := range args[1:] {
		walk(p, kit.Abs(p, n), recursive, func(name string) {
			info, err := p.Sys.FS.Stat(name)
			if err == nil {
				mode, good := parseMode(spec, info.Mode(), info.IsDir())
				if !good {
					kit.Errorf(p, "invalid mode '%s'", spec)
					status = 1
					return
				}
				err = p.Sys.FS.Chmod(name, mode)
			}
			if err != nil {
				kit.Errorf(p, "%s: %s", n, kit.ErrText(err))
				status = 1
			}
		})
	}
	return status
}

// chmodFlags takes chmod's leading [-Rcvf] clusters and "--", as
// busybox's getopt32 does; an argument like -x or -rw is the mode (busybox
// keeps getopt from taking "-rwxXst" ones).
func chmodFlags(p *program.Proc, args []string) (rest []string, recursive, ok bool) {
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		a := args[0]
		if a == "--" {
			return args[1:], recursive, true
		}
		if strings.IndexByte("rwxXst", a[1]) >= 0 {
			break
		}
		for _, c := range []byte(a[1:]) {
			if strings.IndexByte("Rcvf", c) < 0 {
				kit.Errorf(p, "invalid option -- '%c'", c)
				return nil, false, false
			}
			recursive = recursive || c == 'R'
		}
		args = args[1:]
	}
	return args, recursive, true
}

// walk calls fn on name and, when recursive, everything under it
// (symlinks are not followed).
func walk(p *program.Proc, name string, recursive bool, fn func(string)) {
	fn(name)
	if !recursive {
		return
	}
	info, err := p.Sys.FS.Lstat(name)
	if err != nil || !info.IsDir() {
		return
	}
	entries, _ := p.Sys.FS.ReadDir(name)
	for _, e := range entries {
		walk(p, path.Join(name, e.Name()), true, fn)
	}
}
