package nodes

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/cmd"
)

// A cluster that is down fails once, naming the kubeconfig, before any
// node registers (it used to print one refusal per node).
func TestUnreachableClusterFailsOnce(t *testing.T) {
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
	var out bytes.Buffer
	c := NewCommand(cmd.IOStreams{Out: &out, ErrOut: &out})
	c.SetArgs([]string{"--kubeconfig", kubeconfig})
	err = c.ExecuteContext(context.Background())
	if err == nil {
		t.Fatal("want an error for a cluster nobody serves")
	}
	want := "cannot reach the cluster at https://" + addr + " (--kubeconfig " + kubeconfig + ")"
	if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "register node") {
		t.Errorf("error = %q, want it to start %q", err, want)
	}
	if strings.Contains(out.String(), "Joining") {
		t.Errorf("output %q: no node should be joining", out.String())
	}
}
