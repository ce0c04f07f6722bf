package textapplets

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs/vfstest"
)

// env is a busybox container with this package's applets.
type env struct {
	fs  *vfstest.FS
	sys *program.Sys
}

func newEnv() *env {
	clock := clocktesting.NewFakeClock(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	m := vfstest.New(clock)
	progs := map[string]program.Main{
		"echo": Echo, "printf": Printf, "yes": Yes, "seq": Seq, "expr": Expr, "grep": Grep, "egrep": Grep,
		"fgrep": Grep, "sed": Sed, "md5sum": Md5sum, "sha256sum": Sha256sum, "base64": Base64, "awk": Awk,
		"cut": Cut, "tr": Tr, "sort": Sort, "uniq": Uniq,
	}
	return &env{fs: m, sys: &program.Sys{FS: m, Clock: clock, Programs: progs}}
}

func (e *env) run(t *testing.T, stdin string, argv ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	p := &program.Proc{Args: argv, Dir: "/", Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Sys: e.sys}
	code, err := e.sys.Exec(context.Background(), p)
	if err != nil {
		t.Fatalf("%q: %v", argv, err)
	}
	return out.String(), errb.String(), code
}

// tc is one command line and what busybox gives for it: stdout, a part
// of stderr ("" when stderr must be empty) and the status.
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

// a is argv from words; use a []string literal for arguments with spaces.
func a(s string) []string { return strings.Fields(s) }

func (e *env) proc(argv []string) *program.Proc {
	return &program.Proc{Args: argv, Dir: "/", Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Sys: e.sys}
}

func (e *env) ctx() context.Context { return context.Background() }

// limitWriter takes n writes, then fails as a closed pipe does.
type limitWriter struct {
	n   int
	buf bytes.Buffer
}

func (w *limitWriter) Write(b []byte) (int, error) {
	if w.n--; w.n < 0 {
		return 0, errClosed
	}
	return w.buf.Write(b)
}

var errClosed = errors.New("broken pipe")
