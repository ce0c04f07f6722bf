package gmsa

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/gmsa"
)

func execute(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	c := NewCommand(cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	c.SetArgs(args)
	c.SetOut(&out)
	c.SetErr(&errOut)
	err := c.ExecuteContext(context.Background())
	return out.String(), err
}

// Bad flags are refused before anything is written, naming the flag.
func TestInstallFlagErrors(t *testing.T) {
	for args, want := range map[string]string{
		"--url http://h:1":  `--url "http://h:1": want https://HOST:PORT`,
		"--url https://h/x": `--url "https://h/x": give no path`,
		"--namespace=":      "--namespace: want a namespace name",
	} {
		_, err := execute(t, append([]string{"install", "--print"}, strings.Fields(args)...)...)
		var exit *cmd.ExitError
		if !errors.As(err, &exit) || exit.Code != 2 || !strings.Contains(err.Error(), want) {
			t.Errorf("install %s: %v, want exit 2 with %q", args, err, want)
		}
	}
	if _, err := execute(t, "serve"); err == nil || !strings.Contains(err.Error(), "--tls-cert-file and --tls-private-key-file are required") {
		t.Errorf("serve without certificates: %v", err)
	}
}

// --print writes upstream's CRD and, with --url, the two configurations
// pointing at the URL.
func TestInstallPrint(t *testing.T) {
	out, err := execute(t, "install", "--print")
	if err != nil || out != string(gmsa.CRDYAML()) {
		t.Errorf("install --print: %v\n%s", err, out)
	}
	out, err = execute(t, "install", "--print", "--url", "https://127.0.0.1:9443", "--cert-dir", t.TempDir())
	for _, want := range []string{"kind: MutatingWebhookConfiguration", "url: https://127.0.0.1:9443/mutate", "url: https://127.0.0.1:9443/validate", "failurePolicy: Fail", "name: " + gmsa.WebhookName} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("install --print --url lacks %q (%v)", want, err)
		}
	}
}
