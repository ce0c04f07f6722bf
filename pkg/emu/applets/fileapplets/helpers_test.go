package fileapplets

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs/vfstest"
)

var epoch = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

// env is a busybox container: the vfstest image with a passwd and group
// file, a fake clock and this package's applets (plus an echo and a
// false for xargs to run).
type env struct {
	fs    *vfstest.FS
	clock *clocktesting.FakeClock
	sys   *program.Sys
}

func newEnv() *env {
	clock := clocktesting.NewFakeClock(epoch)
	m := vfstest.New(clock)
	m.Put("/etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n", 0o644)
	m.Put("/etc/group", "root:x:0:\nnogroup:x:65534:\n", 0o644)
	progs := map[string]program.Main{
		"cat": Cat, "tee": Tee, "head": Head, "tail": Tail, "wc": Wc, "ls": Ls, "stat": Stat, "find": Find,
		"xargs": Xargs, "test": Test, "[": Test, "sleep": Sleep, "touch": Touch, "mkdir": Mkdir, "rmdir": Rmdir,
		"rm": Rm, "cp": Cp, "mv": Mv, "ln": Ln, "chmod": Chmod, "chown": Chown, "basename": Basename,
		"dirname": Dirname, "readlink": Readlink, "realpath": Realpath,
		"echo": func(_ context.Context, p *program.Proc) int {
			fmt.Fprintln(p.Stdout, strings.Join(p.Args[1:], " "))
			return 0
		},
		"false": func(context.Context, *program.Proc) int { return 1 },
	}
	return &env{fs: m, clock: clock, sys: &program.Sys{FS: m, Clock: clock, Hostname: "pod-1", Programs: progs}}
}

func (e *env) run(t *testing.T, stdin string, argv ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	p := &program.Proc{Args: argv, Env: []string{"PATH=/bin:/usr/bin"}, Dir: "/",
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Sys: e.sys}
	code, err := e.sys.Exec(context.Background(), p)
	if err != nil {
		t.Fatalf("%q: %v", argv, err)
	}
	return out.String(), errb.String(), code
}

// tc is one command line: its stdin, and the stdout, stderr (a part of
// it; "" when it must be empty) and status busybox gives.
type tc struct {
	argv  []string
	stdin string
	out   string
	err   string
	code  int
}

func (e *env) check(t *testing.T, cases []tc) {
	t.Helper()
	for _, c := range cases {
		out, errs, code := e.run(t, c.stdin, c.argv...)
		errOK := strings.Contains(errs, c.err) && (c.err != "" || errs == "")
		if out != c.out || code != c.code || !errOK {
			t.Errorf("%q:\n got (%q, %q, %d)\nwant (%q, %q, %d)", c.argv, out, errs, code, c.out, c.err, c.code)
		}
	}
}

func args(s string) []string { return strings.Fields(s) }

// proc is argv as a process of e, with discarded output.
func (e *env) proc(argv []string) *program.Proc {
	return &program.Proc{Args: argv, Dir: "/", Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Sys: e.sys}
}
