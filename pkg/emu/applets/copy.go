package applets

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

	"github.com/winkube/winkube/pkg/emu/program"
)

// target is where src goes: into dst when dst is a directory.
func target(p *program.Proc, src, dst string, many bool) (string, error) {
	info, err := p.Sys.FS.Stat(abs(p, dst))
	if err == nil && info.IsDir() {
		return path.Join(abs(p, dst), path.Base(strings.TrimRight(src, "/"))), nil
	}
	if many {
		return "", &fs.PathError{Op: "stat", Path: dst, Err: syscall.ENOTDIR}
	}
	return abs(p, dst), nil
}

func cp(ctx context.Context, p *program.Proc) int {
	o, ok := getopt(p, p.Args[1:], "rRapdfinuvLPHT")
	if !ok {
		return 1
	}
	c := copier{p: p, recursive: o.has('r') || o.has('R') || o.has('a'),
		preserve: o.has('p') || o.has('a'), links: o.has('a') || o.has('d') || o.has('P')}
	if len(o.args) < 2 {
		errorf(p, "missing file operand")
		return 1
	}
	srcs, dst := o.args[:len(o.args)-1], o.args[len(o.args)-1]
	status := 0
	for _, s := range srcs {
		to, err := target(p, s, dst, len(srcs) > 1)
		if err != nil {
			errorf(p, "'%s' is not a directory", dst)
			return 1
		}
		if !c.copy(s, abs(p, s), to) {
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
		errorf(c.p, "can't stat '%s': %s", shown, errText(err))
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
			errorf(c.p, "can't create symlink '%s': %s", dst, errText(err))
			return false
		}
		return true
	case info.IsDir():
		if !c.recursive {
			errorf(c.p, "omitting directory '%s'", shown)
			return false
		}
		if strings.HasPrefix(dst+"/", src+"/") {
			errorf(c.p, "recursion detected, omitting directory '%s'", shown)
			return false
		}
		if err := fsys.Mkdir(dst, info.Mode().Perm()|0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			errorf(c.p, "can't create directory '%s': %s", dst, errText(err))
			return false
		}
		entries, err := fsys.ReadDir(src)
		if err != nil {
			errorf(c.p, "can't open '%s': %s", shown, errText(err))
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
		errorf(c.p, "can't create '%s': %s", dst, errText(err))
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

func mv(ctx context.Context, p *program.Proc) int {
	o, ok := getopt(p, p.Args[1:], "finvT")
	if !ok {
		return 1
	}
	if len(o.args) < 2 {
		errorf(p, "missing file operand")
		return 1
	}
	srcs, dst := o.args[:len(o.args)-1], o.args[len(o.args)-1]
	status := 0
	for _, s := range srcs {
		to, err := target(p, s, dst, len(srcs) > 1)
		if err != nil {
			errorf(p, "'%s' is not a directory", dst)
			return 1
		}
		err = p.Sys.FS.Rename(abs(p, s), to)
		if errors.Is(err, syscall.EXDEV) {
			// Across volumes: copy, then remove.
			c := copier{p: p, recursive: true, preserve: true, links: true}
			if c.copy(s, abs(p, s), to) {
				err = p.Sys.FS.RemoveAll(abs(p, s))
			}
		}
		if err != nil {
			errorf(p, "can't rename '%s': %s", s, errText(err))
			status = 1
		} else if o.has('v') {
			fmt.Fprintf(p.Stdout, "'%s' -> '%s'\n", s, shown(s, dst, to != abs(p, dst)))
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

// ln makes symlinks; a hard link (no -s) is a copy, as the FS has none.
func ln(ctx context.Context, p *program.Proc) int {
	o, ok := getopt(p, p.Args[1:], "sfnvT")
	if !ok {
		return 1
	}
	args := o.args
	if len(args) == 1 {
		args = append(args, ".")
	}
	if len(args) < 2 {
		errorf(p, "missing file operand")
		return 1
	}
	srcs, dst := args[:len(args)-1], args[len(args)-1]
	status := 0
	for _, s := range srcs {
		to := abs(p, dst)
		if info, err := p.Sys.FS.Stat(to); err == nil && info.IsDir() && !o.has('n') {
			to = path.Join(to, path.Base(s))
		}
		if o.has('f') {
			p.Sys.FS.Remove(to)
		}
		var err error
		if o.has('s') {
			err = p.Sys.FS.Symlink(s, to)
		} else if _, err = p.Sys.FS.Lstat(to); err == nil {
			err = &fs.PathError{Op: "link", Path: to, Err: syscall.EEXIST}
		} else {
			info, serr := p.Sys.FS.Stat(abs(p, s))
			err = serr
			if err == nil {
				err = copyFile(p.Sys.FS, abs(p, s), to, info.Mode().Perm())
			}
		}
		if err != nil {
			errorf(p, "%s: %s", dst, errText(err))
			status = 1
		}
	}
	return status
}

// chowner is the FS's optional Chown (pkg/emu/vfs has one).
type chowner interface {
	Chown(name string, uid, gid int64) error
}

func chown(ctx context.Context, p *program.Proc) int {
	o, ok := getopt(p, p.Args[1:], "RhfLHPv")
	if !ok {
		return 1
	}
	if len(o.args) < 2 {
		errorf(p, "missing operand")
		return 1
	}
	spec := o.args[0]
	u, g, _ := strings.Cut(strings.Replace(spec, ".", ":", 1), ":")
	uid, gid := int64(-1), int64(-1)
	if u != "" {
		v, ok := lookupID(p, "/etc/passwd", u)
		if !ok {
			errorf(p, "unknown user %s", u)
			return 1
		}
		uid = v
	}
	if g != "" {
		v, ok := lookupID(p, "/etc/group", g)
		if !ok {
			errorf(p, "unknown group %s", g)
			return 1
		}
		gid = v
	}
	ch, _ := p.Sys.FS.(chowner)
	status := 0
	for _, n := range o.args[1:] {
		walk(p, abs(p, n), o.has('R'), func(name string) {
			var err error
			if ch != nil {
				err = ch.Chown(name, uid, gid)
			} else {
				_, err = p.Sys.FS.Lstat(name)
			}
			if err != nil {
				errorf(p, "%s: %s", n, errText(err))
				status = 1
			}
		})
	}
	return status
}

func chmod(ctx context.Context, p *program.Proc) int {
	args := p.Args[1:]
	recursive := false
	for len(args) > 0 && (args[0] == "-R" || args[0] == "-f" || args[0] == "-v" || args[0] == "-c") {
		recursive = recursive || args[0] == "-R"
		args = args[1:]
	}
	if len(args) < 2 {
		errorf(p, "missing operand")
		return 1
	}
	spec := args[0]
	status := 0
	for _, n := range args[1:] {
		walk(p, abs(p, n), recursive, func(name string) {
			info, err := p.Sys.FS.Stat(name)
			if err == nil {
				mode, good := parseMode(spec, info.Mode(), info.IsDir())
				if !good {
					errorf(p, "invalid mode '%s'", spec)
					status = 1
					return
				}
				err = p.Sys.FS.Chmod(name, mode)
			}
			if err != nil {
				errorf(p, "%s: %s", n, errText(err))
				status = 1
			}
		})
	}
	return status
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
