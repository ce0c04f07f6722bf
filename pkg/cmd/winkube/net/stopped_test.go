package net

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

// Against a winkube cluster that is not running, net says so and how to
// start it, not only "connection refused".
func TestStoppedCluster(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := "https://" + l.Addr().String()
	l.Close()
	dir := t.TempDir()
	config := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"" + server + "\"}\n" +
		"users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n"
	if err := os.WriteFile(filepath.Join(dir, "kubeconfig"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c := NewCommand(cmd.IOStreams{Out: &out, ErrOut: &out})
	c.SetArgs([]string{"hns", "win-1", "--data-dir", dir})
	c.SilenceErrors, c.SilenceUsage = true, true
	err = c.ExecuteContext(context.Background())
	var exit *cmd.ExitError
	want := "the cluster is not running (nothing answers at " + server + "): start it with `winkube up --data-dir " + dir + "`"
	if !errors.As(err, &exit) || exit.Code != 2 || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want exit 2 with %q", err, want)
	}
}
