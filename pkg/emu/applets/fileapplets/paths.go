package fileapplets

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Basename is the basename applet.
func Basename(ctx context.Context, p *program.Proc) int {
	args := p.Args[1:]
	if len(args) == 0 {
		fmt.Fprintln(p.Stderr, "basename: usage: basename FILE [SUFFIX]")
		return 1
	}
	s := strings.TrimRight(args[0], "/")
	if s == "" && args[0] != "" {
		s = "/"
	} else {
		s = s[strings.LastIndexByte(s, '/')+1:]
	}
	if len(args) > 1 && s != args[1] {
		s = strings.TrimSuffix(s, args[1])
	}
	fmt.Fprintln(p.Stdout, s)
	return 0
}

// Dirname is the dirname applet.
func Dirname(ctx context.Context, p *program.Proc) int {
	if len(p.Args) < 2 {
		fmt.Fprintln(p.Stderr, "dirname: usage: dirname FILENAME")
		return 1
	}
	s := strings.TrimRight(p.Args[1], "/")
	switch i := strings.LastIndexByte(s, '/'); {
	case p.Args[1] != "" && s == "":
		s = "/"
	case i < 0:
		s = "."
	default:
		s = strings.TrimRight(s[:i], "/")
		if s == "" {
			s = "/"
		}
	}
	fmt.Fprintln(p.Stdout, s)
	return 0
}

// resolve follows every symlink of name in the FS (readlink -f,
// realpath); missing last components are kept as they are.
func resolve(p *program.Proc, name string) (string, error) {
	fsys := p.Sys.FS
	resolved := "/"
	parts := strings.Split(strings.Trim(kit.Abs(p, name), "/"), "/")
	for hops := 0; len(parts) > 0; {
		part := parts[0]
		parts = parts[1:]
		if part == "" || part == "." {
			continue
		}
		if part == ".." {
			resolved = path.Dir(resolved)
			continue
		}
		next := path.Join(resolved, part)
		info, err := fsys.Lstat(next)
		if err != nil {
			if len(parts) > 0 || !errors.Is(err, fs.ErrNotExist) {
				return "", err
			}
			return next, nil
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if hops++; hops > 40 {
			return "", &fs.PathError{Op: "readlink", Path: name, Err: errLoop}
		}
		target, err := fsys.Readlink(next)
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(target, "/") {
			resolved = "/"
		}
		parts = append(strings.Split(strings.Trim(target, "/"), "/"), parts...)
	}
	return resolved, nil
}

var errLoop = errors.New("too many levels of symbolic links")

// Readlink is the readlink applet.
func Readlink(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "fnqsve")
	if !ok {
		return 1
	}
	status := 0
	for _, n := range o.Args {
		var s string
		var err error
		if o.Has('f') || o.Has('e') {
			s, err = resolve(p, n)
		} else {
			s, err = p.Sys.FS.Readlink(kit.Abs(p, n))
		}
		if err != nil {
			status = 1
			continue
		}
		if o.Has('n') {
			fmt.Fprint(p.Stdout, s)
		} else {
			fmt.Fprintln(p.Stdout, s)
		}
	}
	return status
}

// Realpath is the realpath applet. Like coreutils' realpath (and
// busybox's xmalloc_realpath_coreutils), the last component may be
// missing; every directory before it must exist.
func Realpath(ctx context.Context, p *program.Proc) int {
	status := 0
	for _, n := range p.Args[1:] {
		s, err := resolve(p, n)
		if err != nil {
			kit.Errorf(p, "%s: %s", n, kit.ErrText(err))
			status = 1
			continue
		}
		fmt.Fprintln(p.Stdout, s)
	}
	return status
}

// Touch is the touch applet.
func Touch(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "cmahd:t:r:")
	if !ok {
		return 1
	}
	if len(o.Args) == 0 {
		return kit.Usage(p, "touch [-c] [-d DATE] [-t DATE] [-r FILE] FILE...")
	}
	now := p.Sys.Clock.Now()
	if ref, set := o.Val['r']; set {
		info, err := p.Sys.FS.Stat(kit.Abs(p, ref))
		if err != nil {
			kit.Errorf(p, "%s: %s", ref, kit.ErrText(err))
			return 1
		}
		now = info.ModTime()
	}
	if d, set := o.Val['d']; set {
		t, err := kit.ParseDate(d, now)
		if err != nil {
			kit.Errorf(p, "invalid date '%s'", d)
			return 1
		}
		now = t
	}
	if stamp, set := o.Val['t']; set {
		t, ok := touchStamp(stamp, now)
		if !ok {
			kit.Errorf(p, "invalid date '%s'", stamp)
			return 1
		}
		now = t
	}
	status := 0
	for _, n := range o.Args {
		name := kit.Abs(p, n)
		if _, err := p.Sys.FS.Stat(name); err != nil {
			if o.Has('c') {
				continue
			}
			f, err := p.Sys.FS.OpenFile(name, os.O_WRONLY|os.O_CREATE, 0o666)
			if err != nil {
				kit.Errorf(p, "%s: %s", n, kit.ErrText(err))
				status = 1
				continue
			}
			f.Close()
		}
		if err := p.Sys.FS.Chtimes(name, now); err != nil {
			kit.Errorf(p, "%s: %s", n, kit.ErrText(err))
			status = 1
		}
	}
	return status
}

// touchStamp reads touch -t's [[CC]YY]MMDDhhmm[.ss] (UTC, the
// container's zone): without a century YY 69-99 is 19YY, else 20YY;
// without a year it is now's.
func touchStamp(s string, now time.Time) (time.Time, bool) {
	digits, sec, hasSec := strings.Cut(s, ".")
	if hasSec && (len(sec) != 2 || !allDigits(sec)) || !allDigits(digits) {
		return now, false
	}
	switch len(digits) {
	case 8:
		digits = strconv.Itoa(now.UTC().Year()) + digits
	case 10:
		century := "20"
		if digits[:2] >= "69" {
			century = "19"
		}
		digits = century + digits
	case 12:
	default:
		return now, false
	}
	if !hasSec {
		sec = "00"
	}
	t, err := time.Parse("200601021504.05", digits+"."+sec)
	return t, err == nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Mkdir is the mkdir applet.
func Mkdir(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "pm:v")
	if !ok {
		return 1
	}
	if len(o.Args) == 0 {
		return kit.Usage(p, "mkdir [-m MODE] [-p] DIRECTORY...")
	}
	perm := fs.FileMode(0o777)
	if m, set := o.Val['m']; set {
		v, good := parseMode(m, 0o777, false)
		if !good {
			kit.Errorf(p, "invalid mode '%s'", m)
			return 1
		}
		perm = v
	}
	status := 0
	for _, n := range o.Args {
		name := kit.Abs(p, n)
		var err error
		if o.Has('p') {
			err = p.Sys.FS.MkdirAll(name, perm)
		} else {
			err = p.Sys.FS.Mkdir(name, perm)
		}
		if err == nil && o.Has('m') {
			err = p.Sys.FS.Chmod(name, perm)
		}
		if err != nil {
			kit.Errorf(p, "can't create directory '%s': %s", n, kit.ErrText(err))
			status = 1
		}
	}
	return status
}

// Rmdir is the rmdir applet.
func Rmdir(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "p")
	if !ok {
		return 1
	}
	if len(o.Args) == 0 {
		return kit.Usage(p, "rmdir [-p] DIRECTORY...")
	}
	status := 0
	for _, n := range o.Args {
		for {
			name := kit.Abs(p, n)
			info, err := p.Sys.FS.Lstat(name)
			if err == nil && !info.IsDir() {
				err = &fs.PathError{Op: "rmdir", Path: n, Err: kit.ErrNotDir}
			}
			if err == nil {
				err = p.Sys.FS.Remove(name)
			}
			if err != nil {
				kit.Errorf(p, "'%s': %s", n, kit.ErrText(err))
				status = 1
				break
			}
			if !o.Has('p') || !strings.Contains(strings.TrimRight(n, "/"), "/") {
				break
			}
			n = path.Dir(strings.TrimRight(n, "/"))
			if n == "/" || n == "." {
				break
			}
		}
	}
	return status
}

// Rm is the rm applet.
func Rm(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "rRfiv")
	if !ok {
		return 1
	}
	if len(o.Args) == 0 && !o.Has('f') {
		return kit.Usage(p, "rm [-irf] FILE...")
	}
	recursive := o.Has('r') || o.Has('R')
	status := 0
	for _, n := range o.Args {
		name := kit.Abs(p, n)
		info, err := p.Sys.FS.Lstat(name)
		if err != nil {
			if !o.Has('f') {
				kit.Errorf(p, "can't remove '%s': %s", n, kit.ErrText(err))
				status = 1
			}
			continue
		}
		if info.IsDir() && !recursive {
			kit.Errorf(p, "'%s' is a directory", n)
			status = 1
			continue
		}
		if info.IsDir() {
			err = p.Sys.FS.RemoveAll(name)
		} else {
			err = p.Sys.FS.Remove(name)
		}
		if err != nil {
			kit.Errorf(p, "can't remove '%s': %s", n, kit.ErrText(err))
			status = 1
		}
	}
	return status
}
