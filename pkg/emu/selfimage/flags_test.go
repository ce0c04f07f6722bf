package selfimage

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
)

// runArgs runs winkube with args and no cluster: only refusals finish.
func runArgs(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	p := &program.Proc{Args: append([]string{"/winkube"}, args...), Dir: "/", Stdout: &out, Stderr: &errOut, Sys: &program.Sys{}}
	code = Main(context.Background(), p)
	return code, out.String(), errOut.String()
}

// The flags `webhook install` gives its Deployment parse, policy included.
func TestParseTheDeploymentsArgs(t *testing.T) {
	f, err := parse([]string{"--listen=:8443", "--tls-cert-file=/etc/winkube/webhook/tls.crt", "--tls-private-key-file=/etc/winkube/webhook/tls.key",
		"--warn=LIM-3", "--warn=LIM-7", "--windows-taint=team=win:NoSchedule", "--resolve-images=registry", "--registry-timeout=3s"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.listen != ":8443" || f.certFile != "/etc/winkube/webhook/tls.crt" || f.keyFile != "/etc/winkube/webhook/tls.key" {
		t.Errorf("listen, files = %q %q %q", f.listen, f.certFile, f.keyFile)
	}
	p := f.policy
	if strings.Join(p.Warn, ",") != "LIM-3,LIM-7" || p.WindowsTaint != "team=win:NoSchedule" || p.ResolveImages != "registry" || p.RegistryTimeout.String() != "3s" {
		t.Errorf("policy = %+v", p)
	}
	if p.Mode != "enforce" || p.OnRegistryError != "catalog" {
		t.Errorf("defaults = mode %q, on-registry-error %q; want the real command's", p.Mode, p.OnRegistryError)
	}
}

// Refusals are the real command's lines and exit statuses
// (pkg/cmd/winkube/app words flag errors; cobra.NoArgs exits 1).
func TestRefusalsAreWinkubesOwn(t *testing.T) {
	tls := []string{"--tls-cert-file", "a", "--tls-private-key-file", "b"}
	cases := []struct {
		args []string
		code int
		line string
	}{
		{append([]string{"webhook", "serve", "--bogus"}, tls...), 2, "winkube: unknown flag: --bogus (see 'winkube webhook serve --help')"},
		{[]string{"webhook", "serve", "--listen"}, 2, "winkube: flag needs an argument: --listen (see 'winkube webhook serve --help')"},
		{append([]string{"webhook", "serve", "--registry-timeout=x"}, tls...), 2, `winkube: invalid argument "x" for "--registry-timeout" flag: time: invalid duration "x" (see 'winkube webhook serve --help')`},
		{[]string{"webhook", "serve"}, 2, "winkube: --tls-cert-file and --tls-private-key-file are required (kube-apiserver calls webhooks over HTTPS)"},
		{append([]string{"webhook", "serve", "--resolve-images", "dns"}, tls...), 2, `winkube: --resolve-images "dns": want registry or catalog`},
		{append([]string{"webhook", "serve", "extra"}, tls...), 1, `winkube: unknown command "extra" for "winkube webhook serve"`},
		{[]string{"up"}, 1, "winkube: the emulated winkube image runs only `winkube webhook serve`, not `winkube up`"},
	}
	for _, c := range cases {
		code, stdout, stderr := runArgs(t, c.args...)
		if code != c.code || strings.TrimSpace(stderr) != c.line || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit %d, %q", c.args, code, stderr, stdout, c.code, c.line)
		}
	}
}

// --help prints the flags and succeeds, as cobra does.
func TestHelp(t *testing.T) {
	code, stdout, _ := runArgs(t, "webhook", "serve", "--help")
	if code != 0 || !strings.Contains(stdout, "--tls-cert-file") || !strings.Contains(stdout, "--resolve-images") {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
}

// A missing certificate file is named with both flags, as the real
// command names them; the files are the container's, not the host's.
func TestMissingCertificate(t *testing.T) {
	e := newEnv(t, nil)
	e.p.Args = []string{"/winkube", "webhook", "serve", "--tls-cert-file=/etc/tls.crt", "--tls-private-key-file=/etc/tls.key"}
	code := Main(context.Background(), e.p)
	want := "winkube: --tls-cert-file /etc/tls.crt, --tls-private-key-file /etc/tls.key: open /etc/tls.crt: no such file or directory"
	if got := strings.TrimSpace(e.stderr.String()); code != 1 || got != want {
		t.Errorf("exit %d, stderr %q; want 1, %q", code, got, want)
	}
}
