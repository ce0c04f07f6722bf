package engine_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/winkube/winkube/pkg/emu/pwsh/pwshtest"
)

// tc is a script and what PowerShell prints for it: out exactly, and
// err exactly or, when errHas is set, containing it.
type tc struct {
	script string
	out    string
	err    string
	errHas string
	code   int
	pwsh7  bool
}

// lines is PowerShell's console output of the given lines.
func lines(l ...string) string {
	if len(l) == 0 {
		return ""
	}
	return strings.Join(l, "\r\n") + "\r\n"
}

func runAll(t *testing.T, cases []tc) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.script, func(t *testing.T) {
			sys := pwshtest.Sys()
			run := pwshtest.Run
			if c.pwsh7 {
				run = pwshtest.Run7
			}
			r := run(sys, c.script)
			errOK := r.Err == c.err
			if c.errHas != "" {
				errOK = strings.Contains(r.Err, c.errHas)
			}
			if r.Out != c.out || !errOK || r.Code != c.code {
				t.Errorf("got out %q\nerr %q code %d\nwant out %q\nerr %q%q code %d", r.Out, r.Err, r.Code, c.out, c.err, c.errHas, c.code)
			}
		})
	}
}

// TestMain pins the local zone to UTC: the container's clock starts at
// 2:07 PM UTC and the views print local times.
func TestMain(m *testing.M) {
	time.Local = time.UTC
	os.Exit(m.Run())
}
