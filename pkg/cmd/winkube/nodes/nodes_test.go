package nodes

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/cmd"
)

// unreachableKubeconfig writes a kubeconfig for a port nobody serves and
// returns its path and the server's address.
func unreachableKubeconfig(t *testing.T) (string, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://` + addr + `", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return kubeconfig, addr
}

func runNodes(args ...string) (string, error) {
	var out bytes.Buffer
	c := NewCommand(cmd.IOStreams{Out: &out, ErrOut: &out})
	c.SetArgs(args)
	err := c.ExecuteContext(context.Background())
	return out.String(), err
}

// A cluster that is down fails once, naming the kubeconfig, before any
// node registers (it used to print one refusal per node).
func TestUnreachableClusterFailsOnce(t *testing.T) {
	kubeconfig, addr := unreachableKubeconfig(t)
	out, err := runNodes("--kubeconfig", kubeconfig)
	if err == nil {
		t.Fatal("want an error for a cluster nobody serves")
	}
	want := "cannot reach the cluster at https://" + addr + " (--kubeconfig " + kubeconfig + ")"
	if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "register node") {
		t.Errorf("error = %q, want it to start %q", err, want)
	}
	if strings.Contains(out, "Joining") {
		t.Errorf("output %q: no node should be joining", out)
	}
}

// Without --kubeconfig, nodes joins the cluster of $KUBECONFIG, as other
// commands and kubectl do; with neither it is a usage error.
func TestKubeconfigFromEnvironment(t *testing.T) {
	kubeconfig, addr := unreachableKubeconfig(t)
	t.Setenv("KUBECONFIG", kubeconfig)
	_, err := runNodes()
	want := "cannot reach the cluster at https://" + addr + " ($KUBECONFIG " + kubeconfig + ")"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want %q", err, want)
	}
	t.Setenv("KUBECONFIG", "")
	_, err = runNodes()
	var exit *cmd.ExitError
	if !errors.As(err, &exit) || exit.Code != 2 || !strings.Contains(err.Error(), "set --kubeconfig or $KUBECONFIG") {
		t.Errorf("neither: %v", err)
	}
}
