// Package applettest runs applets as a busybox container runs them, for
// the applet packages' tests: a vfstest image, a fake clock, and only the
// programs a test gives.
package applettest

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs/vfstest"
)

// Epoch is where the container's fake clock starts.
var Epoch = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

// Container is the image's files, the clock and the system its processes
// see. Dir is the working directory of the processes Run starts, and Env
// their environment when a case gives none.
type Container struct {
	FS    *vfstest.FS
	Clock *clocktesting.FakeClock
	Sys   *program.Sys
	Dir   string
	Env   []string
}

// New is an empty container that can run progs.
func New(progs map[string]program.Main) *Container {
	clock := clocktesting.NewFakeClock(Epoch)
	fs := vfstest.New(clock)
	return &Container{FS: fs, Clock: clock, Dir: "/", Sys: &program.Sys{FS: fs, Clock: clock, Programs: progs}}
}

// Case is one command line with its stdin and environment, and what
// busybox gives for it: stdout, a part of stderr ("" when stderr must be
// empty) and the exit status.
type Case struct {
	Argv  []string
	Env   []string
	Stdin string
	Out   string
	Err   string
	Code  int
}

// Run runs c's command line and returns its stdout, stderr and status.
func (e *Container) Run(t testing.TB, c Case) (string, string, int) {
	t.Helper()
	env := c.Env
	if env == nil {
		env = e.Env
	}
	var out, errb bytes.Buffer
	p := &program.Proc{Args: c.Argv, Env: env, Dir: e.Dir, Stdin: strings.NewReader(c.Stdin),
		Stdout: &out, Stderr: &errb, Sys: e.Sys}
	code, err := e.Sys.Exec(context.Background(), p)
	if err != nil {
		t.Fatalf("%q: %v", c.Argv, err)
	}
	return out.String(), errb.String(), code
}

// Check runs each case and reports every difference from what it wants.
func (e *Container) Check(t testing.TB, cases []Case) {
	t.Helper()
	for _, c := range cases {
		out, errs, code := e.Run(t, c)
		errOK := strings.Contains(errs, c.Err) && (c.Err != "" || errs == "")
		if out != c.Out || code != c.Code || !errOK {
			t.Errorf("%q:\n got (%q, %q, %d)\nwant (%q, %q, %d)", c.Argv, out, errs, code, c.Out, c.Err, c.Code)
		}
	}
}

// Proc is argv as a process of e whose output is discarded, for tests
// that call an applet's main themselves.
func (e *Container) Proc(argv []string) *program.Proc {
	return &program.Proc{Args: argv, Dir: e.Dir, Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{},
		Stderr: &bytes.Buffer{}, Sys: e.Sys}
}

// Args is argv from words; use a []string literal for arguments with
// spaces.
func Args(s string) []string { return strings.Fields(s) }
