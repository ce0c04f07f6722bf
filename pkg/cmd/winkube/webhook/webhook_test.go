package webhook

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/cmd/winkube/internal/kubeflags"
	"github.com/winkube/winkube/pkg/webhook/install"
)

func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	c := NewCommand(cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out})
	c.SetArgs(args)
	c.SetOut(&out)
	c.SetErr(&out)
	c.SilenceUsage, c.SilenceErrors = true, true
	err := c.ExecuteContext(context.Background())
	return out.String(), err
}

// Usage errors exit 2 and name the flag to change, before any cluster is contacted.
func TestUsageErrorsNameTheFlag(t *testing.T) {
	cases := [][]string{
		{"serve"},
		{"serve", "--tls-cert-file", "a", "--tls-private-key-file", "b", "--resolve-images", "dns"},
		{"install", "--kubeconfig", "/nonexistent", "--failure-policy", "Sometimes"},
		{"install", "--kubeconfig", "/nonexistent", "--timeout-seconds", "31"},
		{"install", "--kubeconfig", "/nonexistent", "--url", "http://127.0.0.1:9443"},
		{"install", "--kubeconfig", "/nonexistent", "--cert-manager", "maybe"},
		{"install", "--kubeconfig", "/nonexistent"},
	}
	wants := []string{"--tls-cert-file", "--resolve-images", "--failure-policy", "--timeout-seconds", "--url", "--cert-manager", "--kubeconfig"}
	for i, args := range cases {
		_, err := run(t, args...)
		var exit *cmd.ExitError
		if !errors.As(err, &exit) || exit.Code != 2 || !strings.Contains(err.Error(), wants[i]) {
			t.Errorf("%v: err = %v, want exit 2 naming %s", args, err, wants[i])
		}
	}
}

// The pods of an in-cluster install get the policy flags the user changed,
// and a registry resolver unless told otherwise.
func TestInstallPassesPolicyToThePods(t *testing.T) {
	f := &installFlags{}
	fs := pflag.NewFlagSet("install", pflag.ContinueOnError)
	f.decision.add(fs)
	if err := fs.Parse([]string{"--warn", "LIM-3,LIM-7", "--windows-taint", "team=win:NoSchedule"}); err != nil {
		t.Fatal(err)
	}
	f.failurePolicy, f.timeoutSeconds, f.replicas, f.certManager = "Ignore", 5, 2, "auto"
	o, err := f.options(fs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--windows-taint=team=win:NoSchedule", "--warn=LIM-3", "--warn=LIM-7", "--resolve-images=registry"}
	if strings.Join(o.ServeArgs, " ") != strings.Join(want, " ") {
		t.Errorf("serve args = %q, want %q", o.ServeArgs, want)
	}
}

func TestServeCommandListensWhereTheURLPoints(t *testing.T) {
	f := &installFlags{cluster: clusterFlags{kubeflags.Flags{DataDir: "/tmp/d"}}}
	cases := map[string]string{
		"https://127.0.0.1:9443":     "--listen 127.0.0.1:9443 ",
		"https://[::1]:9443":         "--listen [::1]:9443 ",
		"https://hooks.example.com":  "--listen :443 ",
		"https://hooks.example.com/": "--listen :443 ",
	}
	for u, want := range cases {
		got := serveCommand(install.Options{URL: u}, "/c", f)
		if !strings.Contains(got, want) || !strings.Contains(got, "--tls-cert-file /c/tls.crt") || !strings.Contains(got, "--data-dir /tmp/d") {
			t.Errorf("%s: %q, want %q", u, got, want)
		}
	}
}
