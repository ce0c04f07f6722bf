package net

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/winkube/winkube/pkg/cmd"
)

// Usage errors exit 2 with a message naming what to change, before any
// cluster is contacted.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "pod/default/a"}, "usage: winkube net check SOURCE TARGET"},
		{[]string{"check", "a", "b", "c"}, "usage: winkube net check SOURCE TARGET"},
		{[]string{"check", "external", "8.8.8.8", "-o", "yaml"}, `--output "yaml"`},
		{[]string{"hns"}, "usage: winkube net hns NODE"},
		{[]string{"matrix", "extra"}, "unknown command"},
		{[]string{"check", "external", "8.8.8.8", "--kubeconfig", "/nonexistent/kubeconfig"}, "/nonexistent/kubeconfig"},
	} {
		var out bytes.Buffer
		c := NewCommand(cmd.IOStreams{Out: &out, ErrOut: &out})
		c.SetArgs(tc.args)
		c.SilenceErrors, c.SilenceUsage = true, true
		err := c.ExecuteContext(context.Background())
		var exit *cmd.ExitError
		if tc.want == "unknown command" {
			if err == nil {
				t.Errorf("%v: no error", tc.args)
			}
			continue
		}
		if !errors.As(err, &exit) || exit.Code != 2 || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("%v: err = %v, want exit 2 mentioning %q", tc.args, err, tc.want)
		}
	}
}
