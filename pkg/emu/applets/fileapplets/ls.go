package fileapplets

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// modeString is ls's -rw-r--r-- form.
func modeString(m fs.FileMode) string {
	b := []byte("----------")
	switch {
	case m.IsDir():
		b[0] = 'd'
	case m&fs.ModeSymlink != 0:
		b[0] = 'l'
	case m&fs.ModeCharDevice != 0:
		b[0] = 'c'
	case m&fs.ModeDevice != 0:
		b[0] = 'b'
	case m&fs.ModeNamedPipe != 0:
		b[0] = 'p'
	case m&fs.ModeSocket != 0:
		b[0] = 's'
	}
	for i, c := range "rwxrwxrwx" {
		if m&(1<<uint(8-i)) != 0 {
			b[i+1] = byte(c)
		}
	}
	exec := func(i int, set bool, lower, upper byte) {
		if !set {
			return
		}
		if b[i] == 'x' {
			b[i] = lower
		} else {
			b[i] = upper
		}
	}
	exec(3, m&fs.ModeSetuid != 0, 's', 'S')
	exec(6, m&fs.ModeSetgid != 0, 's', 'S')
	exec(9, m&fs.ModeSticky != 0, 't', 'T')
	return string(b)
}

func owner(info fs.FileInfo) (int64, int64) {
	if o, ok := info.Sys().(program.FileOwner); ok {
		return o.Owner()
	}
	return 0, 0
}

type lsEntry struct {
	name string // as shown
	full string // FS path
	info fs.FileInfo
}

type lister struct {
	p   *program.Proc
	o   kit.Opts
	w   *kit.Out
	now time.Time
}

// Ls is the ls applet.
func Ls(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "lanAd1RrtShFpiceu")
	if !ok {
		return 1
	}
	l := &lister{p: p, o: o, w: kit.NewOut(p.Stdout), now: p.Sys.Clock.Now()}
	args := o.Args
	if len(args) == 0 {
		args = []string{"."}
	}
	status := 0
	var files, dirs []lsEntry
	for _, a := range args {
		full := kit.Abs(p, a)
		info, err := p.Sys.FS.Lstat(full)
		if err != nil {
			kit.Errorf(p, "%s: %s", a, kit.ErrText(err))
			status = 1
			continue
		}
		// A symlink operand is followed unless -l or -d show the link.
		follow := !o.Has('d') && (!o.Has('l') || strings.HasSuffix(a, "/"))
		if info.Mode()&fs.ModeSymlink != 0 && follow {
			if t, err := p.Sys.FS.Stat(full); err == nil {
				info = t
			}
		}
		e := lsEntry{a, full, info}
		if info.IsDir() && !o.Has('d') {
			dirs = append(dirs, e)
		} else {
			files = append(files, e)
		}
	}
	l.sort(files)
	l.sort(dirs)
	l.print(files)
	for i, d := range dirs {
		if len(files) > 0 || len(dirs) > 1 || o.Has('R') {
			if len(files) > 0 || i > 0 {
				l.w.WriteString("\n")
			}
			l.w.WriteString(d.name + ":\n")
		}
		if !l.dir(d) {
			status = 1
		}
	}
	if l.w.Flush() != nil {
		return 1
	}
	return status
}

func (l *lister) dir(d lsEntry) bool {
	entries, err := l.p.Sys.FS.ReadDir(d.full)
	if err != nil {
		kit.Errorf(l.p, "%s: %s", d.name, kit.ErrText(err))
		return false
	}
	var list []lsEntry
	if l.o.Has('a') {
		for _, dot := range []string{".", ".."} {
			if info, err := l.p.Sys.FS.Stat(path.Join(d.full, dot)); err == nil {
				list = append(list, lsEntry{dot, path.Join(d.full, dot), info})
			}
		}
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && !l.o.Has('a') && !l.o.Has('A') {
			continue
		}
		full := path.Join(d.full, e.Name())
		info, err := l.p.Sys.FS.Lstat(full)
		if err != nil {
			continue
		}
		list = append(list, lsEntry{e.Name(), full, info})
	}
	l.sort(list)
	if l.o.Has('l') || l.o.Has('n') {
		var blocks int64
		for _, e := range list {
			blocks += (e.info.Size() + 4095) / 4096 * 4
		}
		l.w.WriteString(fmt.Sprintf("total %d\n", blocks))
	}
	l.print(list)
	ok := true
	if l.o.Has('R') {
		for _, e := range list {
			if e.info.IsDir() && e.name != "." && e.name != ".." {
				shown := path.Join(d.name, e.name)
				l.w.WriteString("\n" + shown + ":\n")
				ok = l.dir(lsEntry{shown, e.full, e.info}) && ok
			}
		}
	}
	return ok
}

func (l *lister) sort(list []lsEntry) {
	less := func(a, b lsEntry) bool { return a.name < b.name }
	switch {
	case l.o.Has('t'):
		less = func(a, b lsEntry) bool {
			if !a.info.ModTime().Equal(b.info.ModTime()) {
				return a.info.ModTime().After(b.info.ModTime())
			}
			return a.name < b.name
		}
	case l.o.Has('S'):
		less = func(a, b lsEntry) bool {
			if a.info.Size() != b.info.Size() {
				return a.info.Size() > b.info.Size()
			}
			return a.name < b.name
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		if l.o.Has('r') {
			return less(list[j], list[i])
		}
		return less(list[i], list[j])
	})
}

func (l *lister) print(list []lsEntry) {
	long := l.o.Has('l') || l.o.Has('n')
	for _, e := range list {
		name := e.name
		if l.o.Has('F') || l.o.Has('p') {
			name += suffix(e.info, l.o.Has('F'))
		}
		if !long {
			l.w.WriteString(name + "\n")
			continue
		}
		l.w.WriteString(l.longLine(e, name) + "\n")
	}
}

func suffix(info fs.FileInfo, all bool) string {
	m := info.Mode()
	switch {
	case m.IsDir():
		return "/"
	case !all:
		return ""
	case m&fs.ModeSymlink != 0:
		return "@"
	case m&fs.ModeNamedPipe != 0:
		return "|"
	case m&fs.ModeSocket != 0:
		return "="
	case m&0o111 != 0:
		return "*"
	}
	return ""
}

// longLine is busybox's ls -l line:
// "-rw-r--r--    1 root     root            12 Nov 24 10:00 name".
func (l *lister) longLine(e lsEntry, name string) string {
	uid, gid := owner(e.info)
	user, group := strconv.FormatInt(uid, 10), strconv.FormatInt(gid, 10)
	if !l.o.Has('n') {
		if n := kit.UserName(l.p, uid); n != "" {
			user = n
		}
		if n := kit.GroupName(l.p, gid); n != "" {
			group = n
		}
	}
	links := 1
	if e.info.IsDir() {
		links = 2
	}
	size := strconv.FormatInt(e.info.Size(), 10)
	if l.o.Has('h') {
		size = human(e.info.Size())
	}
	t := e.info.ModTime().UTC()
	stamp := t.Format("Jan _2 15:04")
	if age := l.now.Sub(t); age > 182*24*time.Hour || age < -time.Hour {
		stamp = t.Format("Jan _2  2006")
	}
	line := fmt.Sprintf("%-10s %4d %-8s %-8s %9s %s %s", modeString(e.info.Mode()), links, user, group, size, stamp, name)
	if e.info.Mode()&fs.ModeSymlink != 0 {
		if target, err := l.p.Sys.FS.Readlink(e.full); err == nil {
			line += " -> " + target
		}
	}
	return line
}

func human(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10)
	}
	f := float64(n)
	for _, u := range []string{"K", "M", "G", "T"} {
		f /= 1024
		if f < 1024 {
			if f < 10 {
				return fmt.Sprintf("%.1f%s", f, u)
			}
			return fmt.Sprintf("%.0f%s", f, u)
		}
	}
	return fmt.Sprintf("%.0fP", f/1024)
}
