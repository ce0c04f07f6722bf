package applets

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/applets/textapplets"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs/vfstest"
)

var epoch = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

type testEnv struct {
	fs    *vfstest.FS
	clock *clocktesting.FakeClock
	sys   *program.Sys
}

func newEnv() *testEnv {
	clock := clocktesting.NewFakeClock(epoch)
	m := vfstest.New(clock)
	m.Put("/etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n", 0o644)
	m.Put("/etc/group", "root:x:0:\nwheel:x:10:root\n", 0o644)
	m.Put("/data.txt", "one\ntwo\nthree\nfour\n", 0o644)
	sys := &program.Sys{FS: m, Clock: clock, Hostname: "pod-1", Programs: Table()}
	return &testEnv{fs: m, clock: clock, sys: sys}
}

// run runs argv with stdin and returns stdout, stderr and the status.
func (e *testEnv) run(t *testing.T, stdin string, argv ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	p := &program.Proc{Args: argv, Env: []string{"PATH=/bin:/usr/bin", "HOME=/root", "A=1"}, Dir: "/",
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Sys: e.sys}
	code, err := e.sys.Exec(context.Background(), p)
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return out.String(), errb.String(), code
}

type tc struct {
	stdin   string
	argv    []string
	out     string
	errText string
	code    int
}

func runCases(t *testing.T, e *testEnv, cases []tc) {
	t.Helper()
	for _, c := range cases {
		out, errs, code := e.run(t, c.stdin, c.argv...)
		if out != c.out || code != c.code || !strings.Contains(errs, c.errText) {
			t.Errorf("%q: got (%q, %q, %d), want (%q, %q, %d)", c.argv, out, errs, code, c.out, c.errText, c.code)
		}
	}
}

func TestBasics(t *testing.T) {
	e := newEnv()
	runCases(t, e, []tc{
		{argv: []string{"cat", "/data.txt"}, out: "one\ntwo\nthree\nfour\n"},
		{argv: []string{"cat", "/nosuch"}, errText: "cat: can't open '/nosuch': No such file or directory\n", code: 1},
		{stdin: "in\n", argv: []string{"cat"}, out: "in\n"},
		{argv: []string{"echo", "-n", "a", "b"}, out: "a b"},
		{argv: []string{"echo", "-e", `a\tb\c`, "x"}, out: "a\tb"},
		{argv: []string{"echo", "-x"}, out: "-x\n"},
		{argv: []string{"printf", "%s-%d|%05.1f\\n", "a", "7", "3.14159", "b", "8", "1"}, out: "a-7|003.1\nb-8|001.0\n"},
		{argv: []string{"printf", "%x %o %c %%\n", "255", "8", "hello"}, out: "ff 10 h %\n"},
		{argv: []string{"true"}}, {argv: []string{"false"}, code: 1},
		{argv: []string{"pwd"}, out: "/\n"},
		{argv: []string{"basename", "/a/b.txt", ".txt"}, out: "b\n"},
		{argv: []string{"dirname", "/a/b/"}, out: "/a\n"},
		{argv: []string{"dirname", "b"}, out: ".\n"},
		{argv: []string{"hostname"}, out: "pod-1\n"},
		{argv: []string{"uname", "-s", "-n", "-m"}, out: "Linux pod-1 x86_64\n"},
		{argv: []string{"printenv", "A"}, out: "1\n"},
		{argv: []string{"printenv", "NOPE"}, code: 1},
		{argv: []string{"env", "-i", "X=2", "printenv"}, out: "X=2\n"},
		{argv: []string{"env", "nosuch"}, errText: "env: can't execute 'nosuch'", code: 127},
		{argv: []string{"busybox", "echo", "hi"}, out: "hi\n"},
		{argv: []string{"busybox", "nosuch"}, errText: "nosuch: applet not found", code: 127},
		{argv: []string{"kill", "-0", "1"}},
		{argv: []string{"kill", "-TERM", "42"}, errText: "kill: can't kill pid 42: No such process\n", code: 1},
		{argv: []string{"seq", "3"}, out: "1\n2\n3\n"},
		{argv: []string{"seq", "-s", ",", "2", "2", "6"}, out: "2,4,6\n"},
		{argv: []string{"seq", "-w", "8", "10"}, out: "08\n09\n10\n"},
		{argv: []string{"which", "sh", "cat"}, out: "/bin/cat\n", code: 1},
		{argv: []string{"mount"}},
		{argv: []string{"mount", "/dev/sda1", "/mnt"}, errText: "mount: permission denied (are you root?)", code: 255},
		{argv: []string{"date", "-u"}, out: "Tue Nov 24 10:00:00 UTC 2026\n"},
		{argv: []string{"date", "+%Y-%m-%dT%H:%M:%S %s %j %e"}, out: "2026-11-24T10:00:00 1795514400 328 24\n"},
	})
}

func TestID(t *testing.T) {
	e := newEnv()
	e.sys.User = program.User{UID: 1001, GID: 2002, Groups: []int64{3000}}
	runCases(t, e, []tc{
		{argv: []string{"id"}, out: "uid=1001 gid=2002 groups=2002,3000\n"},
		{argv: []string{"id", "-u"}, out: "1001\n"},
		{argv: []string{"id", "-G"}, out: "2002 3000\n"},
		{argv: []string{"whoami"}, errText: "whoami: unknown uid 1001", code: 1},
	})
	e.sys.User = program.User{UID: 0, GID: 0, Groups: []int64{10}, Name: "root", GroupName: "root"}
	runCases(t, e, []tc{
		{argv: []string{"id"}, out: "uid=0(root) gid=0(root) groups=0(root),10(wheel)\n"},
		{argv: []string{"id", "-un"}, out: "root\n"},
		{argv: []string{"whoami"}, out: "root\n"},
	})
}

func TestText(t *testing.T) {
	e := newEnv()
	runCases(t, e, []tc{
		{argv: []string{"head", "-n", "2", "/data.txt"}, out: "one\ntwo\n"},
		{argv: []string{"head", "-1", "/data.txt"}, out: "one\n"},
		{argv: []string{"head", "-c", "5", "/data.txt"}, out: "one\nt"},
		{argv: []string{"tail", "-n", "2", "/data.txt"}, out: "three\nfour\n"},
		{argv: []string{"tail", "-n", "+3", "/data.txt"}, out: "three\nfour\n"},
		{argv: []string{"tail", "-c", "5", "/data.txt"}, out: "four\n"},
		{argv: []string{"wc", "-l", "/data.txt"}, out: "4 /data.txt\n"},
		{stdin: "a b\nc\n", argv: []string{"wc"}, out: "      2       3       6\n"},
		{argv: []string{"grep", "t", "/data.txt"}, out: "two\nthree\n"},
		{argv: []string{"grep", "-c", "o", "/data.txt"}, out: "3\n"},
		{argv: []string{"grep", "-v", "-n", "o", "/data.txt"}, out: "3:three\n"},
		{argv: []string{"grep", "-q", "four", "/data.txt"}},
		{argv: []string{"grep", "five", "/data.txt"}, code: 1},
		{argv: []string{"grep", "x", "/nosuch"}, errText: "grep: /nosuch: No such file or directory", code: 2},
		{argv: []string{"grep", "-o", "-E", "t[a-z]+", "/data.txt"}, out: "two\nthree\n"},
		{argv: []string{"grep", `^\(o\|f\)`, "/data.txt"}, out: "one\nfour\n"},
		{argv: []string{"grep", "-i", "ONE", "/data.txt"}, out: "one\n"},
		{argv: []string{"grep", "-F", "o.", "/data.txt"}, code: 1},
		{stdin: "a:b:c\n", argv: []string{"cut", "-d:", "-f", "2-"}, out: "b:c\n"},
		{stdin: "hello\n", argv: []string{"cut", "-c", "1,3"}, out: "hl\n"},
		{stdin: "hello\n", argv: []string{"tr", "a-z", "A-Z"}, out: "HELLO\n"},
		{stdin: "hello\n", argv: []string{"tr", "-d", "l"}, out: "heo\n"},
		{stdin: "b\na\nc\na\n", argv: []string{"sort", "-u"}, out: "a\nb\nc\n"},
		{stdin: "10\n9\n100\n", argv: []string{"sort", "-n", "-r"}, out: "100\n10\n9\n"},
		{stdin: "a\na\nb\n", argv: []string{"uniq", "-c"}, out: "      2 a\n      1 b\n"},
		{stdin: "x\n", argv: []string{"tee", "/t1"}, out: "x\n"},
		{stdin: "a b c\nd e f\n", argv: []string{"xargs", "-n", "2", "echo"}, out: "a b\nc d\ne f\n"},
		{stdin: "p\nq\n", argv: []string{"xargs", "-I", "{}", "echo", "<{}>"}, out: "<p>\n<q>\n"},
		{stdin: "hello world\n", argv: []string{"sed", "s/o/0/g"}, out: "hell0 w0rld\n"},
		{stdin: "a\nb\nc\n", argv: []string{"sed", "-n", "2p"}, out: "b\n"},
		{stdin: "a\nb\nc\n", argv: []string{"sed", "-e", "/b/d", "-e", "$s/c/C/"}, out: "a\nC\n"},
		{stdin: "key=val\n", argv: []string{"sed", `s/\(.*\)=\(.*\)/\2=\1/`}, out: "val=key\n"},
		{stdin: "a b c\n", argv: []string{"awk", "{print $2}"}, out: "b\n"},
		{stdin: "a:b:c\n", argv: []string{"awk", "-F:", "{print $3, $1}"}, out: "c a\n"},
		{stdin: "x\n", argv: []string{"awk", "/x/ {n++}"}, errText: "awk: unsupported program (winkube emulation)", code: 1},
		{stdin: "hi\n", argv: []string{"md5sum"}, out: "764efa883dda1e11db47671c4a3bbd9e  -\n"},
		{stdin: "hi\n", argv: []string{"sha256sum"}, out: "98ea6e4f216f2fb4b69fff9b3a44842c38686ca685f3f55dc48c5d3fb1107be4  -\n"},
		{stdin: "hello", argv: []string{"base64"}, out: "aGVsbG8=\n"},
		{stdin: "aGVsbG8=\n", argv: []string{"base64", "-d"}, out: "hello"},
	})
	if got := e.fs.Read("/t1"); got != "x\n" {
		t.Errorf("tee wrote %q", got)
	}
}

func TestYesStopsWithReader(t *testing.T) {
	e := newEnv()
	p := &program.Proc{Args: []string{"yes"}, Dir: "/", Stdin: strings.NewReader(""), Stdout: &failAfter{n: 3}, Stderr: &bytes.Buffer{}, Sys: e.sys}
	if code := textapplets.Yes(context.Background(), p); code != 1 {
		t.Fatalf("yes = %d, want 1 once the reader is gone", code)
	}
}

type failAfter struct{ n int }

func (f *failAfter) Write(b []byte) (int, error) {
	if f.n--; f.n < 0 {
		return 0, kit.ErrOutput
	}
	return len(b), nil
}

// mount lists /proc/mounts in busybox's format; -t keeps one type (the
// e2e framework's cgroup v2 check).
func TestMountLists(t *testing.T) {
	e := newEnv()
	e.fs.Put("/proc/mounts", "proc /proc proc rw,nosuid 0 0\ncgroup /sys/fs/cgroup cgroup2 ro,nosuid 0 0\n", 0o444)
	runCases(t, e, []tc{
		{argv: []string{"mount"}, out: "proc on /proc type proc (rw,nosuid)\ncgroup on /sys/fs/cgroup type cgroup2 (ro,nosuid)\n"},
		{argv: []string{"mount", "-t", "cgroup2"}, out: "cgroup on /sys/fs/cgroup type cgroup2 (ro,nosuid)\n"},
	})
}

// stty size prints the terminal's rows and columns; without a terminal
// it fails as busybox does.
func TestSttySize(t *testing.T) {
	e := newEnv()
	runCases(t, e, []tc{{argv: []string{"stty", "size"}, errText: "stty: standard input: Not a tty", code: 1}})
	term := program.DefaultTerminal()
	term.SetSize(50, 132)
	var out bytes.Buffer
	p := &program.Proc{Args: []string{"stty", "size"}, Dir: "/", Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, TTY: true, Term: term, Sys: e.sys}
	if code, _ := e.sys.Exec(context.Background(), p); code != 0 || out.String() != "50 132\n" {
		t.Errorf("stty size: %q (%d)", out.String(), code)
	}
}
