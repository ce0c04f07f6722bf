package fileapplets

import (
	"context"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

func fileType(info fs.FileInfo) string {
	m := info.Mode()
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeCharDevice != 0:
		return "character special file"
	case m&fs.ModeDevice != 0:
		return "block special file"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case info.Size() == 0:
		return "regular empty file"
	}
	return "regular file"
}

// octalMode is the 4-digit-at-most %a of stat: permission and special bits.
func octalMode(m fs.FileMode) int {
	v := int(m.Perm())
	if m&fs.ModeSetuid != 0 {
		v |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		v |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		v |= 0o1000
	}
	return v
}

func statTime(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05.000000000 -0700")
}

// Stat is the stat applet.
func Stat(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "c:LftT")
	if !ok {
		return 1
	}
	if len(o.Args) == 0 {
		kit.Errorf(p, "missing operand")
		return 1
	}
	status := 0
	for _, n := range o.Args {
		full := kit.Abs(p, n)
		get := p.Sys.FS.Lstat
		if o.Has('L') {
			get = p.Sys.FS.Stat
		}
		info, err := get(full)
		if err != nil {
			kit.Errorf(p, "can't stat '%s': %s", n, kit.ErrText(err))
			status = 1
			continue
		}
		if format, set := o.Val['c']; set {
			fmt.Fprintln(p.Stdout, statFormat(p, format, n, full, info))
			continue
		}
		fmt.Fprint(p.Stdout, statFormat(p, statDefault, n, full, info))
	}
	return status
}

const statDefault = "  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6B %F\n" +
	"Device: %Dh/%dd\tInode: %-10i  Links: %h\n" +
	"Access: (%04a/%A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n" +
	"Access: %x\nModify: %y\nChange: %z\n"

// statFormat expands stat -c directives; a width/flags between % and the
// letter apply as printf's.
func statFormat(p *program.Proc, format, name, full string, info fs.FileInfo) string {
	var b strings.Builder
	uid, gid := owner(info)
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == '\\' && i+1 < len(format) {
			s, _ := kit.Unescape(format[i:i+2], true)
			b.WriteString(s)
			i++
			continue
		}
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-0123456789#+ ", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			b.WriteString(format[i:])
			break
		}
		flags := format[i+1 : j]
		i = j
		var v any
		switch format[j] {
		case '%':
			b.WriteByte('%')
			continue
		case 'a':
			v = strconv.FormatInt(int64(octalMode(info.Mode())), 8)
			if strings.HasPrefix(flags, "0") {
				n, _ := strconv.Atoi(flags)
				v = fmt.Sprintf("%0*o", n, octalMode(info.Mode()))
				flags = ""
			}
		case 'A':
			v = modeString(info.Mode())
		case 'b':
			v = (info.Size() + 511) / 512
		case 'B':
			v = 512
		case 'd', 'D':
			v = 0
		case 'f':
			v = strconv.FormatInt(int64(info.Mode().Perm()), 16)
		case 'F':
			v = fileType(info)
		case 'g':
			v = gid
		case 'G':
			v = orUnknown(kit.GroupName(p, gid))
		case 'h':
			v = 1
		case 'i':
			v = 0
		case 'n':
			v = name
		case 'N':
			v = "'" + name + "'"
			if info.Mode()&fs.ModeSymlink != 0 {
				if t, err := p.Sys.FS.Readlink(full); err == nil {
					v = "'" + name + "' -> '" + t + "'"
				}
			}
		case 'o':
			v = 4096
		case 's':
			v = info.Size()
		case 't', 'T':
			v = 0
		case 'u':
			v = uid
		case 'U':
			v = orUnknown(kit.UserName(p, uid))
		case 'x', 'y', 'z':
			v = statTime(info.ModTime())
		case 'X', 'Y', 'Z':
			v = info.ModTime().Unix()
		default:
			b.WriteString("?")
			continue
		}
		b.WriteString(fmt.Sprintf("%"+flags+"v", v))
	}
	return b.String()
}

func orUnknown(s string) string {
	if s == "" {
		return "UNKNOWN"
	}
	return s
}

// Sleep waits on the container's clock: seconds with decimals and
// s/m/h/d suffixes, summed over operands; "inf"/"infinity" until stopped.
func Sleep(ctx context.Context, p *program.Proc) int {
	if len(p.Args) < 2 {
		fmt.Fprintln(p.Stderr, "BusyBox v1.37.0 (2024-09-26 21:31:42 UTC) multi-call binary.\n\nUsage: sleep [N]...")
		return 1
	}
	var total time.Duration
	for _, a := range p.Args[1:] {
		if a == "inf" || a == "infinity" {
			<-ctx.Done()
			return 0
		}
		d, ok := parseSleep(a)
		if !ok {
			kit.Errorf(p, "invalid number '%s'", a)
			return 1
		}
		total += d
	}
	if !p.Sys.Sleep(ctx, total) {
		return 143
	}
	return 0
}

func parseSleep(s string) (time.Duration, bool) {
	unit := time.Second
	if s != "" {
		switch s[len(s)-1] {
		case 's':
			s = s[:len(s)-1]
		case 'm':
			unit, s = time.Minute, s[:len(s)-1]
		case 'h':
			unit, s = time.Hour, s[:len(s)-1]
		case 'd':
			unit, s = 24*time.Hour, s[:len(s)-1]
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || s == "" || strings.ContainsAny(s, "eEnNxX") {
		return 0, false
	}
	return time.Duration(v * float64(unit)), true
}
