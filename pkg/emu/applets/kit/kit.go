// Package kit is what every applet family shares, as busybox 1.37 does it:
// messages (name: text), operands ("-" is stdin), buffered output that
// stops once the reader is gone, the image's user database, dates and
// backslash escapes.
package kit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

// Name is the applet's name as busybox prints it in messages.
func Name(p *program.Proc) string { return program.Name(p.Args[0]) }

// Errorf prints "applet: message" on stderr, as busybox's bb_error_msg.
func Errorf(p *program.Proc, format string, args ...any) {
	fmt.Fprintf(p.Stderr, Name(p)+": "+format+"\n", args...)
}

// Banner is the first line of busybox's usage messages.
const Banner = "BusyBox v1.37.0 (2024-09-26 21:31:42 UTC) multi-call binary."

// Usage is bb_show_usage: the banner and the applet's usage line on
// stderr, status 1 (what busybox does when operands are missing).
func Usage(p *program.Proc, usage string) int {
	fmt.Fprintf(p.Stderr, "%s\n\nUsage: %s\n", Banner, usage)
	return 1
}

// ErrText is strerror's wording of an FS error.
func ErrText(err error) string { return program.ErrorText(err, false) }

// Abs is operand n as an absolute path in the container's filesystem.
func Abs(p *program.Proc, n string) string { return p.Sys.FS.Abs(p.Dir, n) }

// OpenIn opens an input operand: "-" is stdin. The closer is a no-op for
// stdin.
func OpenIn(p *program.Proc, n string) (io.ReadCloser, error) {
	if n == "-" {
		return io.NopCloser(p.Stdin), nil
	}
	f, err := p.Sys.FS.OpenFile(Abs(p, n), os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err == nil && info.IsDir() {
		f.Close()
		return nil, &os.PathError{Op: "read", Path: n, Err: errIsDir}
	}
	return f, nil
}

// EachInput calls fn with each operand's reader (stdin when none),
// reporting "can't open 'NAME'" as busybox's open_or_warn does (cat,
// tail, md5sum); it returns 1 if any failed.
func EachInput(p *program.Proc, names []string, fn func(n string, r io.Reader) error) int {
	return eachInput(p, names, true, fn)
}

// EachFile is EachInput for the applets that open their operands with
// busybox's fopen_or_warn (head, wc, cut): a failure reads "NAME: error".
func EachFile(p *program.Proc, names []string, fn func(n string, r io.Reader) error) int {
	return eachInput(p, names, false, fn)
}

func eachInput(p *program.Proc, names []string, canOpen bool, fn func(n string, r io.Reader) error) int {
	if len(names) == 0 {
		names = []string{"-"}
	}
	status := 0
	for _, n := range names {
		r, err := OpenIn(p, n)
		if err != nil {
			switch {
			case isDirErr(err):
				Errorf(p, "read error: Is a directory")
			case !canOpen:
				Errorf(p, "%s: %s", n, ErrText(err))
			default:
				Errorf(p, "can't open '%s': %s", n, ErrText(err))
			}
			status = 1
			continue
		}
		err = fn(n, r)
		r.Close()
		if err != nil {
			if err == ErrStop {
				return status
			}
			if err != ErrOutput {
				Errorf(p, "%s: %s", n, ErrText(err))
			}
			status = 1
			if err == ErrOutput {
				return status
			}
		}
	}
	return status
}

// Lines calls fn with each line of r, its newline included when present.
func Lines(r io.Reader, fn func(line string) error) error {
	br := bufio.NewReaderSize(r, 64*1024)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if ferr := fn(line); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// ReadAll reads a small file (a pattern list, a script).
func ReadAll(p *program.Proc, n string) (string, error) {
	r, err := OpenIn(p, n)
	if err != nil {
		return "", err
	}
	defer r.Close()
	var b strings.Builder
	_, err = io.Copy(&b, io.LimitReader(r, 16<<20))
	return b.String(), err
}

// OpenOut creates or truncates n for writing.
func OpenOut(p *program.Proc, n string) (program.File, error) {
	return p.Sys.FS.OpenFile(Abs(p, n), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
}

// Unescape expands backslash escapes (echo -e, printf %b and formats);
// stop reports a \c, which ends all output. In printf formats octal
// escapes are \NNN; for echo and %b they are \0NNN.
func Unescape(s string, format bool) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'c':
			return b.String(), true
		case 'e':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\':
			b.WriteByte('\\')
		case 'x':
			j, v := i+1, 0
			for ; j < len(s) && j < i+3 && IsHex(s[j]); j++ {
				v = v*16 + hexVal(s[j])
			}
			if j == i+1 {
				b.WriteString("\\x")
				continue
			}
			b.WriteByte(byte(v))
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j, v, maxLen := i, 0, 3
			if s[i] == '0' && !format {
				j, maxLen = i+1, 3
			}
			start := j
			for ; j < len(s) && j < start+maxLen && s[j] >= '0' && s[j] <= '7'; j++ {
				v = v*8 + int(s[j]-'0')
			}
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String(), false
}

// UserName is the name of uid: the process's own User.Name, else the
// image's /etc/passwd; "" when unknown.
func UserName(p *program.Proc, uid int64) string {
	if uid == p.Sys.User.UID && p.Sys.User.Name != "" {
		return p.Sys.User.Name
	}
	for _, e := range readDB(p, "/etc/passwd") {
		if e.id == uid {
			return e.name
		}
	}
	return ""
}

// GroupName is the name of gid in the image's /etc/group; "" when
// unknown.
func GroupName(p *program.Proc, gid int64) string {
	if gid == p.Sys.User.GID && p.Sys.User.GroupName != "" {
		return p.Sys.User.GroupName
	}
	for _, e := range readDB(p, "/etc/group") {
		if e.id == gid {
			return e.name
		}
	}
	return ""
}

// LookupID finds name's id in file (/etc/passwd or /etc/group).
func LookupID(p *program.Proc, file, name string) (int64, bool) {
	if n, err := strconv.ParseInt(name, 10, 64); err == nil {
		return n, true
	}
	for _, e := range readDB(p, file) {
		if e.name == name {
			return e.id, true
		}
	}
	return 0, false
}

// ParseDate reads a date as date -d and touch -d take it.
func ParseDate(s string, now time.Time) (time.Time, error) {
	if strings.HasPrefix(s, "@") {
		var sec int64
		if _, err := fmt.Sscanf(s[1:], "%d", &sec); err != nil {
			return now, err
		}
		return time.Unix(sec, 0).UTC(), nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02", time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return now, errors.New("invalid date")
}

// IsHex reports whether c is a hexadecimal digit.
func IsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c <= '9':
		return int(c - '0')
	case c >= 'a':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

// dbEntry is a line of the image's /etc/passwd or /etc/group.
type dbEntry struct {
	name string
	id   int64
}

func readDB(p *program.Proc, file string) []dbEntry {
	f, err := p.Sys.FS.OpenFile(file, os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []dbEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) < 3 {
			continue
		}
		if id, err := strconv.ParseInt(fields[2], 10, 64); err == nil {
			out = append(out, dbEntry{fields[0], id})
		}
	}
	return out
}
