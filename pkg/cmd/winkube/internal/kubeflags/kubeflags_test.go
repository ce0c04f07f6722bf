package kubeflags

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kubeconfig writes a kubeconfig with one context per server, named as
// given, the first current.
func kubeconfig(t *testing.T, path string, contexts map[string]string, current string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Config\nclusters:\n")
	for name, server := range contexts {
		b.WriteString("- name: " + name + "\n  cluster: {server: \"" + server + "\"}\n")
	}
	b.WriteString("users:\n- name: u\n  user: {token: t}\ncontexts:\n")
	for name := range contexts {
		b.WriteString("- name: " + name + "\n  context: {cluster: " + name + ", user: u}\n")
	}
	b.WriteString("current-context: " + current + "\n")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// closedPort is a loopback address where nothing listens.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "https://" + addr
}

func TestContextPicksTheCluster(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	kubeconfig(t, path, map[string]string{"a": "https://127.0.0.1:1", "b": "https://127.0.0.1:2"}, "a")
	t.Setenv("KUBECONFIG", "")
	for ctx, want := range map[string]string{"": "https://127.0.0.1:1", "b": "https://127.0.0.1:2"} {
		f := Flags{Kubeconfig: path, Context: ctx}
		cfg, err := f.RESTConfig()
		if err != nil || cfg.Host != want {
			t.Errorf("--context %q: host %v, err %v; want %s", ctx, cfg, err, want)
		}
	}
	f := Flags{Kubeconfig: path, Context: "nope"}
	if _, err := f.RESTConfig(); err == nil || !strings.Contains(err.Error(), `--context "nope"`) || !strings.Contains(err.Error(), "a, b") {
		t.Errorf("unknown context: %v", err)
	}
}

// --kubeconfig beats --data-dir, an explicit --data-dir beats $KUBECONFIG,
// and $KUBECONFIG beats the default data dir.
func TestWhichKubeconfig(t *testing.T) {
	tmp := t.TempDir()
	flagFile, envFile, dir := filepath.Join(tmp, "flag"), filepath.Join(tmp, "env"), filepath.Join(tmp, "data")
	kubeconfig(t, flagFile, map[string]string{"f": "https://127.0.0.1:1"}, "f")
	kubeconfig(t, envFile, map[string]string{"e": "https://127.0.0.1:2"}, "e")
	kubeconfig(t, filepath.Join(dir, "kubeconfig"), map[string]string{"d": "https://127.0.0.1:3"}, "d")
	t.Setenv("KUBECONFIG", envFile)
	for _, tc := range []struct {
		f    Flags
		want string
	}{
		{Flags{Kubeconfig: flagFile, DataDir: dir}, ":1"},
		{Flags{DataDir: dir}, ":3"},
		{Flags{}, ":2"},
	} {
		cfg, err := tc.f.RESTConfig()
		if err != nil || !strings.HasSuffix(cfg.Host, tc.want) {
			t.Errorf("%+v: %v %v, want host ending %s", tc.f, cfg, err, tc.want)
		}
	}
	f := Flags{DataDir: filepath.Join(tmp, "none")}
	if _, err := f.RESTConfig(); err == nil || !strings.Contains(err.Error(), "winkube up --data-dir "+filepath.Join(tmp, "none")) {
		t.Errorf("missing data dir: %v", err)
	}
}

// A stopped winkube cluster is named as such, with the command that
// starts it; a stopped cluster of any other kubeconfig is said to be
// unreachable at its address.
func TestExplainAStoppedCluster(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	dir := t.TempDir()
	server := closedPort(t)
	kubeconfig(t, filepath.Join(dir, "kubeconfig"), map[string]string{"winkube": server}, "winkube")
	other := filepath.Join(t.TempDir(), "config")
	kubeconfig(t, other, map[string]string{"winkube-dev": server, "prod": server}, "prod")
	for _, tc := range []struct {
		f    Flags
		want string
	}{
		{Flags{DataDir: dir}, "the cluster is not running (nothing answers at " + server + "): start it with `winkube up --data-dir " + dir + "`"},
		{Flags{Kubeconfig: other, Context: "winkube-dev"}, "start it with `winkube up --name dev` (or add --detach)"},
		{Flags{Kubeconfig: other}, "nothing answers at " + server + " (connection refused): is the cluster of --kubeconfig " + other + ", context prod running?"},
	} {
		cs, err := tc.f.Client()
		if err != nil {
			t.Fatal(err)
		}
		_, err = cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
		err = tc.f.Explain(err)
		var nr *NotRunningError
		if !errors.As(err, &nr) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v\nwant %q", tc.f, err, tc.want)
		}
	}
	if err := (&Flags{}).Explain(errors.New("forbidden")); err.Error() != "forbidden" {
		t.Errorf("other errors changed: %v", err)
	}
}

// joinFlags are flags as AddJoinFlags defines them.
func joinFlags(t *testing.T, args ...string) *Flags {
	t.Helper()
	f := &Flags{}
	fs := pflag.NewFlagSet("nodes", pflag.ContinueOnError)
	f.AddJoinFlags(fs, "")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f
}

// Join flags take --kubeconfig, else $KUBECONFIG (a list, merged as
// kubectl does), else in a pod its service account; never ~/.kube/config
// nor a winkube data dir, and naming none is ErrNotNamed.
func TestJoinFlagsNeedANamedCluster(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("HOME", tmp)
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	flagFile, envFile := filepath.Join(tmp, "flag"), filepath.Join(tmp, "env")
	kubeconfig(t, flagFile, map[string]string{"f": "https://127.0.0.1:1"}, "f")
	kubeconfig(t, envFile, map[string]string{"e": "https://127.0.0.1:2"}, "e")
	kubeconfig(t, filepath.Join(tmp, ".kube", "config"), map[string]string{"h": "https://127.0.0.1:3"}, "h")
	kubeconfig(t, filepath.Join(tmp, ".winkube", "default", "kubeconfig"), map[string]string{"d": "https://127.0.0.1:4"}, "d")

	t.Setenv("KUBECONFIG", "")
	f := joinFlags(t)
	if _, err := f.RESTConfig(); !errors.Is(err, ErrNotNamed) {
		t.Errorf("nothing named: err = %v, want ErrNotNamed", err)
	}
	f = joinFlags(t, "--kubeconfig", flagFile)
	if cfg, err := f.RESTConfig(); err != nil || cfg.Host != "https://127.0.0.1:1" || f.Source() != "--kubeconfig "+flagFile {
		t.Errorf("--kubeconfig: %v %v from %q", cfg, err, f.Source())
	}
	t.Setenv("KUBECONFIG", filepath.Join(tmp, "missing")+string(filepath.ListSeparator)+envFile)
	f = joinFlags(t)
	if cfg, err := f.RESTConfig(); err != nil || cfg.Host != "https://127.0.0.1:2" || !strings.HasPrefix(f.Source(), "$KUBECONFIG ") {
		t.Errorf("$KUBECONFIG: %v %v from %q", cfg, err, f.Source())
	}

	// In a pod the service account is used; a kubeconfig still wins.
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
	t.Setenv("KUBERNETES_SERVICE_PORT", "443")
	f = joinFlags(t)
	cfg, err := f.RESTConfig()
	switch {
	case err == nil && cfg.Host != "https://10.96.0.1:443":
		t.Errorf("in a pod: host %s", cfg.Host) // this machine is a pod with a token
	case err != nil && !strings.Contains(err.Error(), "token"):
		t.Errorf("in a pod without a token: err = %v, want it to name the token file", err)
	}
	if !strings.Contains(f.Source(), "service account") {
		t.Errorf("in a pod: source %q", f.Source())
	}
	f = joinFlags(t, "--kubeconfig", flagFile)
	if cfg, err := f.RESTConfig(); err != nil || cfg.Host != "https://127.0.0.1:1" {
		t.Errorf("--kubeconfig in a pod: %v %v", cfg, err)
	}
}
