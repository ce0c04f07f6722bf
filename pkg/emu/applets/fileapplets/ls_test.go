package fileapplets

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/applets/applettest"
)

func lsTree(e *env) {
	_ = e.FS.MkdirAll("/d/sub", 0o755)
	e.FS.Put("/d/big", "0123456789", 0o644)
	e.FS.Put("/d/run", "#!/bin/sh\n", 0o755)
	e.FS.Put("/d/.dot", "", 0o600)
	e.FS.Put("/d/sub/deep", "", 0o644)
	_ = e.FS.Symlink("big", "/d/ln")
	_ = e.FS.Chtimes("/d/big", applettest.Epoch.Add(-time.Hour))
	_ = e.FS.Chtimes("/d/run", applettest.Epoch.Add(-400*24*time.Hour))
}

// ls [-1AaCxdLHRFplinshrSXvctu] [FILE]...: names sorted; -A leaves out .
// and .., -F marks types, -r, -t and -S order, -R recurses, -d lists a
// directory itself; flags combine.
func TestLsListing(t *testing.T) {
	e := newEnv()
	lsTree(e)
	e.Check(t, []tc{
		{Argv: args("ls /d"), Out: "big\nln\nrun\nsub\n"},
		{Argv: args("ls -A /d"), Out: ".dot\nbig\nln\nrun\nsub\n"},
		{Argv: args("ls -aF /d"), Out: "./\n../\n.dot\nbig\nln@\nrun*\nsub/\n"},
		{Argv: args("ls -p /d"), Out: "big\nln\nrun\nsub/\n"},
		{Argv: args("ls -r /d"), Out: "sub\nrun\nln\nbig\n"},
		{Argv: args("ls -S /d/big /d/run"), Out: "/d/big\n/d/run\n"},
		{Argv: args("ls -t /d/run /d/big"), Out: "/d/big\n/d/run\n"},
		{Argv: args("ls -tr /d/big /d/run"), Out: "/d/run\n/d/big\n"},
		{Argv: args("ls -d /d /d/sub"), Out: "/d\n/d/sub\n"},
		{Argv: args("ls /d/big /d/sub"), Out: "/d/big\n\n/d/sub:\ndeep\n"},
		{Argv: args("ls /d/sub /etc/passwd"), Out: "/etc/passwd\n\n/d/sub:\ndeep\n"},
		{Argv: args("ls -R /d/sub"), Out: "/d/sub:\ndeep\n"},
		{Argv: args("ls -1R /d"), Out: "/d:\nbig\nln\nrun\nsub\n\n/d/sub:\ndeep\n"},
		{Argv: args("ls /d/ln"), Out: "/d/ln\n"},
		{Argv: args("ls /nosuch /d/sub"), Out: "deep\n", Err: "ls: /nosuch: No such file or directory", Code: 1},
		{Argv: args("ls -y"), Err: "ls: invalid option -- 'y'", Code: 1},
	})
}

// ls -l: mode, links, owner, group, size, date (the year instead of the
// time for a file six months old), name and a link's target; -n numbers
// the owner, -h sizes in K/M/G.
func TestLsLong(t *testing.T) {
	e := newEnv()
	lsTree(e)
	e.FS.Put("/d/huge", strings.Repeat("x", 1536), 0o644)
	e.Check(t, []tc{
		{Argv: args("ls -l /d/big /d/run"), Out: "" +
			"-rw-r--r--    1 root     root            10 Nov 24 09:00 /d/big\n" +
			"-rwxr-xr-x    1 root     root            10 Oct 20  2025 /d/run\n"},
		{Argv: args("ls -l /d/ln"), Out: "lrwxrwxrwx    1 root     root             3 Nov 24 10:00 /d/ln -> big\n"},
		{Argv: args("ls -ld /d/sub"), Out: "drwxr-xr-x    2 root     root          4096 Nov 24 10:00 /d/sub\n"},
		{Argv: args("ls -lh /d/huge"), Out: "-rw-r--r--    1 root     root          1.5K Nov 24 10:00 /d/huge\n"},
		{Argv: args("ls -ln /d/sub"), Out: "total 0\n-rw-r--r--    1 0        0                0 Nov 24 10:00 deep\n"},
	})
}

// stat [-ltLf] [-c FMT] FILE...: -c's directives with printf widths and
// backslash escapes; -L follows a symlink; the default is a long block.
func TestStat(t *testing.T) {
	e := newEnv()
	lsTree(e)
	e.Check(t, []tc{
		{Argv: args("stat -c %n|%s|%F|%a|%A|%u|%U|%g|%G /d/big"), Out: "/d/big|10|regular file|644|-rw-r--r--|0|root|0|root\n"},
		{Argv: args("stat -c %F /d/ln /d/sub /dev/null"), Out: "symbolic link\ndirectory\ncharacter special file\n"},
		{Argv: args("stat -L -c %F:%s /d/ln"), Out: "regular file:10\n"},
		{Argv: args("stat -c %N /d/ln"), Out: "'/d/ln' -> 'big'\n"},
		{Argv: args("stat -c %04a /d/.dot"), Out: "0600\n"},
		{Argv: args("stat -c [%5s][%-5s] /d/big"), Out: "[   10][10   ]\n"},
		{Argv: args("stat -c %Y:%X /d/big"), Out: "1795510800:1795510800\n"},
		{Argv: args("stat -c %y /d/big"), Out: "2026-11-24 09:00:00.000000000 +0000\n"},
		{Argv: []string{"stat", "-c", `%n\t%s%%`, "/d/big"}, Out: "/d/big\t10%\n"},
		{Argv: args("stat -c %b:%B /d/big"), Out: "1:512\n"},
		{Argv: args("stat /nosuch"), Err: "stat: can't stat '/nosuch': No such file or directory", Code: 1},
		{Argv: args("stat"), Err: "stat: missing operand", Code: 1},
		{Argv: args("stat -c"), Err: "stat: option requires an argument -- 'c'", Code: 1},
	})
	out, _, code := e.Run(t, tc{Argv: args("stat /d/big")})
	want := "  File: '/d/big'\n  Size: 10        \tBlocks: 1          IO Block: 512    regular file\n"
	if code != 0 || len(out) < len(want) || out[:len(want)] != want {
		t.Errorf("stat /d/big:\n%s", out)
	}
}

// find [-HL] [PATH]... [OPTIONS] [ACTIONS]: -name/-iname/-path globs,
// -type, -mindepth/-maxdepth, -print0; tests AND together.
func TestFind(t *testing.T) {
	e := newEnv()
	lsTree(e)
	e.FS.Put("/d/sub/UP.TXT", "", 0o644)
	e.Check(t, []tc{
		{Argv: args("find /d/sub"), Out: "/d/sub\n/d/sub/UP.TXT\n/d/sub/deep\n"},
		{Argv: args("find /d -type d"), Out: "/d\n/d/sub\n"},
		{Argv: args("find /d -type l"), Out: "/d/ln\n"},
		{Argv: args("find /d -name b*"), Out: "/d/big\n"},
		{Argv: args("find /d -iname up.txt"), Out: "/d/sub/UP.TXT\n"},
		{Argv: args("find /d -path /d/s*/d*"), Out: "/d/sub/deep\n"},
		{Argv: args("find /d -mindepth 2 -type f"), Out: "/d/sub/UP.TXT\n/d/sub/deep\n"},
		{Argv: args("find /d -maxdepth 0"), Out: "/d\n"},
		{Argv: args("find /d/sub -type f -print0"), Out: "/d/sub/UP.TXT\x00/d/sub/deep\x00"},
		{Argv: args("find /d/sub/deep /d/ln"), Out: "/d/sub/deep\n/d/ln\n"},
		{Argv: args("find /nosuch /d/sub/deep"), Out: "/d/sub/deep\n", Err: "find: /nosuch: No such file or directory", Code: 1},
		{Argv: args("find /d -name"), Err: "find: -name requires an argument", Code: 1},
		{Argv: args("find /d -maxdepth x"), Err: "find: invalid number 'x'", Code: 1},
		{Argv: args("find /d -bogus 1"), Err: "find: unrecognized: -bogus", Code: 1},
	})
	// No path is ".", the working directory.
	e.Check(t, []tc{{Argv: args("find -name deep"), Out: "./d/sub/deep\n"}})
}

// xargs [-0rtx] [-n N] [-I STR] [PROG ARGS]: echo by default; a command
// that fails makes xargs exit 123, one it cannot run 127.
func TestXargs(t *testing.T) {
	e := newEnv()
	e.Check(t, []tc{
		{Argv: args("xargs"), Stdin: "a b\nc\n", Out: "a b c\n"},
		{Argv: args("xargs -n 1"), Stdin: "a b\n", Out: "a\nb\n"},
		{Argv: args("xargs -n1 echo x"), Stdin: "a b\n", Out: "x a\nx b\n"},
		{Argv: args("xargs -0 echo"), Stdin: "a b\x00c\x00", Out: "a b c\n"},
		{Argv: args("xargs -I % echo <%>"), Stdin: "p q\nr\n", Out: "<p q>\n<r>\n"},
		{Argv: args("xargs echo"), Stdin: "", Out: "\n"},
		{Argv: args("xargs -r echo"), Stdin: "", Out: ""},
		{Argv: args("xargs -t echo"), Stdin: "z\n", Out: "z\n", Err: "echo z\n"},
		{Argv: args("xargs false"), Stdin: "z\n", Code: 123},
		{Argv: args("xargs nosuch"), Stdin: "z\n", Err: "xargs: nosuch: No such file or directory", Code: 127},
		{Argv: args("xargs -n 0"), Stdin: "z\n", Err: "xargs: invalid number '0'", Code: 1},
		{Argv: args("xargs -q"), Err: "xargs: invalid option -- 'q'", Code: 1},
	})
}

// test EXPRESSION and [ EXPRESSION ]: exit 0 true, 1 false, 2 error.
func TestTestApplet(t *testing.T) {
	e := newEnv()
	lsTree(e)
	e.FS.Put("/d/empty", "", 0o644)
	e.Check(t, []tc{
		{Argv: args("test -s /d/big")},
		{Argv: args("test -s /d/empty"), Code: 1},
		{Argv: args("test -L /d/ln")},
		{Argv: args("test -h /d/big"), Code: 1},
		{Argv: args("test -x /d/run")},
		{Argv: args("test -c /dev/null")},
		{Argv: args("test ! -e /nosuch")},
		{Argv: args("test abc")},
		{Argv: []string{"test", ""}, Code: 1},
		{Argv: args("test /d/big -nt /d/run")},
		{Argv: args("test /d/big -ot /d/run"), Code: 1},
		{Argv: args("test 10 -ge 9 -a 1 -ne 2")},
		{Argv: args("[ -d /d -o -f /nosuch ]")},
		{Argv: []string{"[", "a", "<", "b", "]"}},
		{Argv: args("test 1 -eq"), Err: "unknown operand", Code: 2},
		{Argv: args("test 1 -eq a"), Err: "test: a: bad number", Code: 2},
		{Argv: args("[ -f /d/big"), Err: "[: missing ]", Code: 2},
	})
}

// sleep N[smhd]... sums its operands on the container's clock; a
// stopped sleep returns at once.
func TestSleepArgs(t *testing.T) {
	e := newEnv()
	e.Check(t, []tc{
		{Argv: args("sleep 0")},
		{Argv: args("sleep"), Err: "Usage: sleep", Code: 1},
		{Argv: args("sleep 1x"), Err: "sleep: invalid number '1x'", Code: 1},
		{Argv: args("sleep -1"), Err: "sleep: invalid number '-1'", Code: 1},
	})
	for s, want := range map[string]time.Duration{"2": 2 * time.Second, "1.5m": 90 * time.Second, "1h": time.Hour, "1d": 24 * time.Hour, "0.5s": 500 * time.Millisecond} {
		if d, ok := parseSleep(s); !ok || d != want {
			t.Errorf("sleep %s = %v %v, want %v", s, d, ok, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if code := Sleep(ctx, e.Proc(args("sleep infinity"))); code != 0 {
		t.Errorf("stopped sleep infinity = %d", code)
	}
	if code := Sleep(ctx, e.Proc(args("sleep 10"))); code != 143 {
		t.Errorf("stopped sleep 10 = %d, want 143", code)
	}
}
