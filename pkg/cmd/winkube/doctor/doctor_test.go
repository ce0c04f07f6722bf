package doctor_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/cmd/winkube/app"
)

// runDoctor runs `winkube doctor args...` and returns its exit code and
// output.
func runDoctor(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	code := app.Run(context.Background(), streams, append([]string{"doctor"}, args...))
	return code, out.String(), errOut.String()
}

// Usage errors and a cluster that cannot be read exit 2, as lint's input
// errors do, and name the flag to change.
func TestCommandUsageErrors(t *testing.T) {
	dir := t.TempDir()
	unreachable := filepath.Join(dir, "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`
	if err := os.WriteFile(unreachable, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--kubeconfig", unreachable, "--fail-on", "fatal"}, "--fail-on"},
		{[]string{"--kubeconfig", unreachable, "-o", "yaml"}, "--output"},
		{[]string{"--no-such-flag"}, "unknown flag"},
		{[]string{"--kubeconfig", filepath.Join(dir, "missing")}, "--kubeconfig"},
		{[]string{"--kubeconfig", unreachable}, "--kubeconfig"},
	}
	for _, tc := range cases {
		code, _, stderr := runDoctor(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("doctor %v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
