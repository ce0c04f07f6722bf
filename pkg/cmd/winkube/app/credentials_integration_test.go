package app

import (
	"bytes"
	"encoding/base64"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/winkube/winkube/pkg/controlplane/cptest"
)

// The commands that read a user's kubeconfig hand the client config on in
// memory: none writes the credentials in it anywhere. TMPDIR is a plain
// file here, so any temporary file fails the command even as root; HOME
// and the kubeconfig's directory are searched afterwards for the client
// key. --context picks a context that is not the current one, which is
// what used to be copied to a temporary kubeconfig.
func TestNoCommandWritesCredentials(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	cp, cleanup, err := cptest.Start("")
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	dir := t.TempDir()
	kubeconfig, key := userKubeconfig(t, cp.KubeconfigPath(), dir)
	manifest := filepath.Join(dir, "pod.yaml")
	if err := os.WriteFile(manifest, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: busybox}]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	notADir := filepath.Join(t.TempDir(), "tmp")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("TMPDIR", notADir)
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")

	cluster := []string{"--kubeconfig", kubeconfig, "--context", "second"}
	for _, tc := range []struct {
		args  []string
		codes string // the exit codes that mean the cluster was read
		said  string // and what the command says then on stderr
	}{
		{[]string{"lint", manifest}, "01", ""},
		{[]string{"doctor"}, "01", ""},
		{[]string{"net", "matrix"}, "2", "has no running pods"}, // a cluster without nodes
		{[]string{"nodes", "install", "--image", "winkube:test"}, "0", ""},
		{[]string{"nodes", "uninstall"}, "0", ""},
	} {
		args := append(append([]string{}, tc.args...), cluster...)
		code, _, errOut := run(t, args...)
		if !strings.Contains(tc.codes, string(rune('0'+code))) || !strings.Contains(errOut, tc.said) {
			t.Errorf("%v: exit %d, want one of %s (saying %q): %s", tc.args, code, tc.codes, tc.said, errOut)
		}
	}
	for _, root := range []string{home, dir} {
		searchCredentials(t, root, kubeconfig, key)
	}
}

// userKubeconfig copies the admin kubeconfig into dir as a user's would
// be: the admin context as "second", and a current context naming a
// cluster nobody serves. It returns the path and the client key.
func userKubeconfig(t *testing.T, admin, dir string) (string, []byte) {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(admin)
	if err != nil {
		t.Fatal(err)
	}
	var key []byte
	for _, a := range cfg.AuthInfos {
		key = a.ClientKeyData
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	if ctx == nil || len(key) == 0 {
		t.Fatalf("admin kubeconfig %s: no current context or client key", admin)
	}
	cfg.Contexts["second"] = ctx.DeepCopy()
	cfg.Clusters["nowhere"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1"}
	cfg.Contexts["first"] = &clientcmdapi.Context{Cluster: "nowhere", AuthInfo: ctx.AuthInfo}
	cfg.CurrentContext = "first"
	path := filepath.Join(dir, "config")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path, key
}

// searchCredentials fails for a file under root, other than the
// kubeconfig itself, holding the key as PEM or base64-encoded PEM.
func searchCredentials(t *testing.T, root, kubeconfig string, key []byte) {
	t.Helper()
	encoded := []byte(base64.StdEncoding.EncodeToString(key))
	_, body, _ := bytes.Cut(key, []byte("\n")) // the PEM's base64 lines
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == kubeconfig {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(data, body[:64]) || bytes.Contains(data, encoded[:64]) {
			t.Errorf("%s holds the kubeconfig's client key", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
