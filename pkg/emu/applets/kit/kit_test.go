package kit

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs/vfstest"
)

func proc(argv ...string) (*program.Proc, *bytes.Buffer) {
	var errb bytes.Buffer
	fs := vfstest.New(nil)
	fs.Put("/etc/passwd", "root:x:0:0::/root:/bin/sh\nbad line\napp:x:1000:1000::/app:/bin/sh\n", 0o644)
	fs.Put("/etc/group", "root:x:0:\nstaff:x:50:app\n", 0o644)
	return &program.Proc{Args: argv, Dir: "/", Stdin: strings.NewReader("in\n"), Stdout: &bytes.Buffer{}, Stderr: &errb,
		Sys: &program.Sys{FS: fs}}, &errb
}

// Getopt is busybox's getopt32: clustered flags, values glued or in the
// next word, operands mixed with flags (GNU permutation) unless the spec
// starts with '+', "--" ending flags, a lone "-" an operand.
func TestGetopt(t *testing.T) {
	tests := []struct {
		spec, args string
		has        string
		vals       map[byte][]string
		operands   []string
		err        string
	}{
		{spec: "abc", args: "-ab x -c", has: "abc", operands: []string{"x"}},
		{spec: "n:v", args: "-n5 -vn 7 f", has: "nv", vals: map[byte][]string{'n': {"5", "7"}}, operands: []string{"f"}},
		{spec: "n:", args: "-n -x", has: "n", vals: map[byte][]string{'n': {"-x"}}},
		{spec: "a", args: "-- -a b", operands: []string{"-a", "b"}},
		{spec: "a", args: "- -a", has: "a", operands: []string{"-"}},
		{spec: "+a", args: "x -a", operands: []string{"x", "-a"}},
		{spec: "+ab", args: "-a cmd -b", has: "a", operands: []string{"cmd", "-b"}},
		{spec: "ab", args: "-az", err: "t: invalid option -- 'z'\n"},
		{spec: "a:", args: "-a", err: "t: option requires an argument -- 'a'\n"},
		{spec: "a:", args: "-:", err: "t: invalid option -- ':'\n"},
	}
	for _, tt := range tests {
		p, errb := proc("/bin/t")
		o, ok := Getopt(p, strings.Fields(tt.args), tt.spec)
		if tt.err != "" {
			if ok || errb.String() != tt.err {
				t.Errorf("%q %q: ok %v, stderr %q, want %q", tt.spec, tt.args, ok, errb.String(), tt.err)
			}
			continue
		}
		if !ok {
			t.Errorf("%q %q failed: %s", tt.spec, tt.args, errb.String())
			continue
		}
		for _, c := range []byte("abcnvz") {
			if o.Has(c) != strings.ContainsRune(tt.has, rune(c)) {
				t.Errorf("%q %q: Has(%c) = %v", tt.spec, tt.args, c, o.Has(c))
			}
		}
		for c, want := range tt.vals {
			if !reflect.DeepEqual(o.Vals[c], want) || o.Val[c] != want[len(want)-1] {
				t.Errorf("%q %q: -%c values %q (last %q), want %q", tt.spec, tt.args, c, o.Vals[c], o.Val[c], want)
			}
		}
		if !reflect.DeepEqual(o.Args, tt.operands) {
			t.Errorf("%q %q: operands %q, want %q", tt.spec, tt.args, o.Args, tt.operands)
		}
	}
}

// Unescape is echo -e (octal \0NNN) and printf's format (octal \NNN).
func TestUnescape(t *testing.T) {
	tests := []struct {
		in     string
		format bool
		out    string
		stop   bool
	}{
		{`a\tb\nc`, false, "a\tb\nc", false},
		{`\a\b\e\f\r\v\\`, false, "\a\b\x1b\f\r\v\\", false},
		{`\0101\0`, false, "A\x00", false},
		{`\101`, true, "A", false},
		{`\1011`, true, "A1", false},
		{`\101`, false, "A", false},
		{`\x41\x4a2\xg`, false, "AJ2\\xg", false},
		{`x\cy`, false, "x", true},
		{`\q\`, false, `\q\`, false},
	}
	for _, tt := range tests {
		out, stop := Unescape(tt.in, tt.format)
		if out != tt.out || stop != tt.stop {
			t.Errorf("Unescape(%q, %v) = %q %v, want %q %v", tt.in, tt.format, out, stop, tt.out, tt.stop)
		}
	}
}

func TestParseDate(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	good := map[string]time.Time{
		"@0":                   time.Unix(0, 0).UTC(),
		"2020-05-06 07:08:09":  time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC),
		"2020-05-06T07:08:09":  time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC),
		"2020-05-06 07:08":     time.Date(2020, 5, 6, 7, 8, 0, 0, time.UTC),
		"2020-05-06":           time.Date(2020, 5, 6, 0, 0, 0, 0, time.UTC),
		"2020-05-06T07:08:09Z": time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC),
	}
	for s, want := range good {
		if got, err := ParseDate(s, now); err != nil || !got.Equal(want) {
			t.Errorf("ParseDate(%q) = %v %v, want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"@x", "yesterday", "2020-13-01", ""} {
		if got, err := ParseDate(s, now); err == nil || !got.Equal(now) {
			t.Errorf("ParseDate(%q) = %v %v, want an error and now", s, got, err)
		}
	}
}

// EachInput says "can't open 'NAME'" (open_or_warn), EachFile "NAME:
// error" (fopen_or_warn); both go on with the next operand and return 1.
func TestEachInputWording(t *testing.T) {
	for _, tt := range []struct {
		each func(*program.Proc, []string, func(string, io.Reader) error) int
		want string
	}{
		{EachInput, "t: can't open 'nosuch': No such file or directory\nt: read error: Is a directory\n"},
		{EachFile, "t: nosuch: No such file or directory\nt: read error: Is a directory\n"},
	} {
		p, errb := proc("t")
		var seen []string
		status := tt.each(p, []string{"nosuch", "/etc", "/etc/group", "-"}, func(n string, r io.Reader) error {
			b, _ := io.ReadAll(r)
			seen = append(seen, n+"="+string(b))
			return nil
		})
		if status != 1 || errb.String() != tt.want || len(seen) != 2 {
			t.Errorf("status %d, stderr %q, read %q", status, errb.String(), seen)
		}
	}
	p, _ := proc("t")
	calls := 0
	stop := func(string, io.Reader) error { calls++; return ErrStop }
	if status := EachInput(p, []string{"-", "-"}, stop); status != 0 || calls != 1 {
		t.Errorf("ErrStop: status %d after %d calls", status, calls)
	}
	p, errb := proc("t")
	fail := func(string, io.Reader) error { return errors.New("boom") }
	if status := EachInput(p, nil, fail); status != 1 || errb.String() != "t: -: boom\n" {
		t.Errorf("a failing reader: %d %q", status, errb.String())
	}
}

func TestLinesKeepsNewlines(t *testing.T) {
	var got []string
	err := Lines(strings.NewReader("a\n\nb"), func(l string) error { got = append(got, l); return nil })
	if err != nil || !reflect.DeepEqual(got, []string{"a\n", "\n", "b"}) {
		t.Errorf("Lines = %q %v", got, err)
	}
}

// Out remembers the first write error and reports ErrOutput from then on.
func TestOutStopsAfterFailure(t *testing.T) {
	w := &brokenWriter{}
	o := NewOut(w)
	if err := o.WriteString("x"); err != nil {
		t.Fatal(err)
	}
	if err := o.Flush(); err != ErrOutput || o.Err == nil {
		t.Fatalf("Flush = %v", err)
	}
	if _, err := o.Write([]byte("y")); err != ErrOutput {
		t.Errorf("Write after failure = %v", err)
	}
	if err := o.WriteString("z"); err != ErrOutput || w.calls != 1 {
		t.Errorf("WriteString after failure = %v, %d writes", err, w.calls)
	}
}

type brokenWriter struct{ calls int }

func (w *brokenWriter) Write([]byte) (int, error) { w.calls++; return 0, errors.New("broken pipe") }

// Names come from the process's own user first, then the image's
// passwd and group files; unknown ids have no name.
func TestUserDatabase(t *testing.T) {
	p, _ := proc("t")
	p.Sys.User = program.User{UID: 7, GID: 8, Name: "seven", GroupName: "eight"}
	cases := []struct{ got, want string }{
		{UserName(p, 7), "seven"}, {UserName(p, 1000), "app"}, {UserName(p, 5), ""},
		{GroupName(p, 8), "eight"}, {GroupName(p, 50), "staff"}, {GroupName(p, 51), ""},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: %q, want %q", i, c.got, c.want)
		}
	}
	for _, c := range []struct {
		file, name string
		id         int64
		ok         bool
	}{{"/etc/passwd", "app", 1000, true}, {"/etc/passwd", "42", 42, true}, {"/etc/group", "staff", 50, true}, {"/etc/group", "none", 0, false}} {
		if id, ok := LookupID(p, c.file, c.name); id != c.id || ok != c.ok {
			t.Errorf("LookupID(%s, %s) = %d %v", c.file, c.name, id, ok)
		}
	}
}
