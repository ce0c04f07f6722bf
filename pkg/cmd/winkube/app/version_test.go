package app

import (
	"context"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/cmd"
)

// --version after any command prints the version and does nothing else:
// `winkube up --version` started a cluster. The context is cancelled, so a
// regression stops at once instead of running a cluster.
func TestVersionFlagOnEveryCommand(t *testing.T) {
	_, want, _ := run(t, "version")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"up", "--version", "--data-dir", dir, "--port", "0"},
		{"net", "check", "--version"},
		{"lint", "--version"},
		{"describe", "--version"},
		{"plan", "--version"},
		{"down", "--version", "--data-dir", dir},
	} {
		var out, errOut strings.Builder
		code := Run(ctx, cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, args)
		if code != 0 || out.String() != want || errOut.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", args, code, out.String(), errOut.String(), want)
		}
	}
}
