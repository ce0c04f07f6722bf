package fileapplets

import (
	"context"
	"strings"
	"testing"
	"time"
)

func lsTree(e *env) {
	_ = e.fs.MkdirAll("/d/sub", 0o755)
	e.fs.Put("/d/big", "0123456789", 0o644)
	e.fs.Put("/d/run", "#!/bin/sh\n", 0o755)
	e.fs.Put("/d/.dot", "", 0o600)
	e.fs.Put("/d/sub/deep", "", 0o644)
	_ = e.fs.Symlink("big", "/d/ln")
	_ = e.fs.Chtimes("/d/big", epoch.Add(-time.Hour))
	_ = e.fs.Chtimes("/d/run", epoch.Add(-400*24*time.Hour))
}

// ls [-1AaCxdLHRFplinshrSXvctu] [FILE]...: names sorted; -A leaves out .
// and .., -F marks types, -r, -t and -S order, -R recurses, -d lists a
// directory itself; flags combine.
func TestLsListing(t *testing.T) {
	e := newEnv()
	lsTree(e)
	e.check(t, []tc{
		{argv: args("ls /d"), out: "big\nln\nrun\nsub\n"},
		{argv: args("ls -A /d"), out: ".dot\nbig\nln\nrun\nsub\n"},
		{argv: args("ls -aF /d"), out: "./\n../\n.dot\nbig\nln@\nrun*\nsub/\n"},
		{argv: args("ls -p /d"), out: "big\nln\nrun\nsub/\n"},
		{argv: args("ls -r /d"), out: "sub\nrun\nln\nbig\n"},
		{argv: args("ls -S /d/big /d/run"), out: "/d/big\n/d/run\n"},
		{argv: args("ls -t /d/run /d/big"), out: "/d/big\n/d/run\n"},
		{argv: args("ls -tr /d/big /d/run"), out: "/d/run\n/d/big\n"},
		{argv: args("ls -d /d /d/sub"), out: "/d\n/d/sub\n"},
		{argv: args("ls /d/big /d/sub"), out: "/d/big\n\n/d/sub:\ndeep\n"},
		{argv: args("ls /d/sub /etc/passwd"), out: "/etc/passwd\n\n/d/sub:\ndeep\n"},
		{argv: args("ls -R /d/sub"), out: "/d/sub:\ndeep\n"},
		{argv: args("ls -1R /d"), out: "/d:\nbig\nln\nrun\nsub\n\n/d/sub:\ndeep\n"},
		{argv: args("ls /d/ln"), out: "/d/ln\n"},
		{argv: args("ls /nosuch /d/sub"), out: "deep\n", err: "ls: /nosuch: No such file or directory", code: 1},
		{argv: args("ls -y"), err: "ls: invalid option -- 'y'", code: 1},
	})
}

// ls -l: mode, links, owner, group, size, date (the year instead of the
// time for a file six months old), name and a link's target; -n numbers
// the owner, -h sizes in K/M/G.
func TestLsLong(t *testing.T) {
	e := newEnv()
	lsTree(e)
	e.fs.Put("/d/huge", strings.Repeat("x", 1536), 0o644)
	e.check(t, []tc{
		{argv: args("ls -l /d/big /d/run"), out: "" +
			"-rw-r--r--    1 root     root            10 Nov 24 09:00 /d/big\n" +
			"-rwxr-xr-x    1 root     root            10 Oct 20  2025 /d/run\n"},
		{argv: args("ls -l /d/ln"), out: "lrwxrwxrwx    1 root     root             3 Nov 24 10:00 /d/ln -> big\n"},
		{argv: args("ls -ld /d/sub"), out: "drwxr-xr-x    2 root     root          4096 Nov 24 10:00 /d/sub\n"},
		{argv: args("ls -lh /d/huge"), out: "-rw-r--r--    1 root     root          1.5K Nov 24 10:00 /d/huge\n"},
		{argv: args("ls -ln /d/sub"), out: "total 0\n-rw-r--r--    1 0        0                0 Nov 24 10:00 deep\n"},
	})
}

// stat [-ltLf] [-c FMT] FILE...: -c's directives with printf widths and
// backslash escapes; -L follows a symlink; the default is a long block.
func TestStat(t *testing.T) {
	e := newEnv()
	lsTree(e)
	e.check(t, []tc{
		{argv: args("stat -c %n|%s|%F|%a|%A|%u|%U|%g|%G /d/big"), out: "/d/big|10|regular file|644|-rw-r--r--|0|root|0|root\n"},
		{argv: args("stat -c %F /d/ln /d/sub /dev/null"), out: "symbolic link\ndirectory\ncharacter special file\n"},
		{argv: args("stat -L -c %F:%s /d/ln"), out: "regular file:10\n"},
		{argv: args("stat -c %N /d/ln"), out: "'/d/ln' -> 'big'\n"},
		{argv: args("stat -c %04a /d/.dot"), out: "0600\n"},
		{argv: args("stat -c [%5s][%-5s] /d/big"), out: "[   10][10   ]\n"},
		{argv: args("stat -c %Y:%X /d/big"), out: "1795510800:1795510800\n"},
		{argv: args("stat -c %y /d/big"), out: "2026-11-24 09:00:00.000000000 +0000\n"},
		{argv: []string{"stat", "-c", `%n\t%s%%`, "/d/big"}, out: "/d/big\t10%\n"},
		{argv: args("stat -c %b:%B /d/big"), out: "1:512\n"},
		{argv: args("stat /nosuch"), err: "stat: can't stat '/nosuch': No such file or directory", code: 1},
		{argv: args("stat"), err: "stat: missing operand", code: 1},
		{argv: args("stat -c"), err: "stat: option requires an argument -- 'c'", code: 1},
	})
	out, _, code := e.run(t, "", "stat", "/d/big")
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
	e.fs.Put("/d/sub/UP.TXT", "", 0o644)
	e.check(t, []tc{
		{argv: args("find /d/sub"), out: "/d/sub\n/d/sub/UP.TXT\n/d/sub/deep\n"},
		{argv: args("find /d -type d"), out: "/d\n/d/sub\n"},
		{argv: args("find /d -type l"), out: "/d/ln\n"},
		{argv: args("find /d -name b*"), out: "/d/big\n"},
		{argv: args("find /d -iname up.txt"), out: "/d/sub/UP.TXT\n"},
		{argv: args("find /d -path /d/s*/d*"), out: "/d/sub/deep\n"},
		{argv: args("find /d -mindepth 2 -type f"), out: "/d/sub/UP.TXT\n/d/sub/deep\n"},
		{argv: args("find /d -maxdepth 0"), out: "/d\n"},
		{argv: args("find /d/sub -type f -print0"), out: "/d/sub/UP.TXT\x00/d/sub/deep\x00"},
		{argv: args("find /d/sub/deep /d/ln"), out: "/d/sub/deep\n/d/ln\n"},
		{argv: args("find /nosuch /d/sub/deep"), out: "/d/sub/deep\n", err: "find: /nosuch: No such file or directory", code: 1},
		{argv: args("find /d -name"), err: "find: -name requires an argument", code: 1},
		{argv: args("find /d -maxdepth x"), err: "find: invalid number 'x'", code: 1},
		{argv: args("find /d -bogus 1"), err: "find: unrecognized: -bogus", code: 1},
	})
	// No path is ".", the working directory.
	e.check(t, []tc{{argv: args("find -name deep"), out: "./d/sub/deep\n"}})
}

// xargs [-0rtx] [-n N] [-I STR] [PROG ARGS]: echo by default; a command
// that fails makes xargs exit 123, one it cannot run 127.
func TestXargs(t *testing.T) {
	e := newEnv()
	e.check(t, []tc{
		{argv: args("xargs"), stdin: "a b\nc\n", out: "a b c\n"},
		{argv: args("xargs -n 1"), stdin: "a b\n", out: "a\nb\n"},
		{argv: args("xargs -n1 echo x"), stdin: "a b\n", out: "x a\nx b\n"},
		{argv: args("xargs -0 echo"), stdin: "a b\x00c\x00", out: "a b c\n"},
		{argv: args("xargs -I % echo <%>"), stdin: "p q\nr\n", out: "<p q>\n<r>\n"},
		{argv: args("xargs echo"), stdin: "", out: "\n"},
		{argv: args("xargs -r echo"), stdin: "", out: ""},
		{argv: args("xargs -t echo"), stdin: "z\n", out: "z\n", err: "echo z\n"},
		{argv: args("xargs false"), stdin: "z\n", code: 123},
		{argv: args("xargs nosuch"), stdin: "z\n", err: "xargs: nosuch: No such file or directory", code: 127},
		{argv: args("xargs -n 0"), stdin: "z\n", err: "xargs: invalid number '0'", code: 1},
		{argv: args("xargs -q"), err: "xargs: invalid option -- 'q'", code: 1},
	})
}

// test EXPRESSION and [ EXPRESSION ]: exit 0 true, 1 false, 2 error.
func TestTestApplet(t *testing.T) {
	e := newEnv()
	lsTree(e)
	e.fs.Put("/d/empty", "", 0o644)
	e.check(t, []tc{
		{argv: args("test -s /d/big")},
		{argv: args("test -s /d/empty"), code: 1},
		{argv: args("test -L /d/ln")},
		{argv: args("test -h /d/big"), code: 1},
		{argv: args("test -x /d/run")},
		{argv: args("test -c /dev/null")},
		{argv: args("test ! -e /nosuch")},
		{argv: args("test abc")},
		{argv: []string{"test", ""}, code: 1},
		{argv: args("test /d/big -nt /d/run")},
		{argv: args("test /d/big -ot /d/run"), code: 1},
		{argv: args("test 10 -ge 9 -a 1 -ne 2")},
		{argv: args("[ -d /d -o -f /nosuch ]")},
		{argv: []string{"[", "a", "<", "b", "]"}},
		{argv: args("test 1 -eq"), err: "unknown operand", code: 2},
		{argv: args("test 1 -eq a"), err: "test: a: bad number", code: 2},
		{argv: args("[ -f /d/big"), err: "[: missing ]", code: 2},
	})
}

// sleep N[smhd]... sums its operands on the container's clock; a
// stopped sleep returns at once.
func TestSleepArgs(t *testing.T) {
	e := newEnv()
	e.check(t, []tc{
		{argv: args("sleep 0")},
		{argv: args("sleep"), err: "Usage: sleep", code: 1},
		{argv: args("sleep 1x"), err: "sleep: invalid number '1x'", code: 1},
		{argv: args("sleep -1"), err: "sleep: invalid number '-1'", code: 1},
	})
	for s, want := range map[string]time.Duration{"2": 2 * time.Second, "1.5m": 90 * time.Second, "1h": time.Hour, "1d": 24 * time.Hour, "0.5s": 500 * time.Millisecond} {
		if d, ok := parseSleep(s); !ok || d != want {
			t.Errorf("sleep %s = %v %v, want %v", s, d, ok, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if code := Sleep(ctx, e.proc(args("sleep infinity"))); code != 0 {
		t.Errorf("stopped sleep infinity = %d", code)
	}
	if code := Sleep(ctx, e.proc(args("sleep 10"))); code != 143 {
		t.Errorf("stopped sleep 10 = %d, want 143", code)
	}
}
