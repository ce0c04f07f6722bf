package e2e

import (
	"bytes"
	"encoding/base64"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

// noCredentialWritten runs commands that reach a cluster through a
// kubeconfig with HOME, TMPDIR and the XDG dirs in a scratch dir, and
// fails if any file they leave there holds the kubeconfig's credentials:
// a command builds its client from the kubeconfig in memory and never
// copies the user's key or token to disk.
func noCredentialWritten(t *testing.T, kubeconfig string) {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	var secrets [][]byte
	for _, a := range cfg.AuthInfos {
		for _, s := range [][]byte{a.ClientKeyData, []byte(a.Token)} {
			if len(s) > 0 {
				secrets = append(secrets, s)
			}
		}
	}
	if len(secrets) == 0 {
		t.Fatalf("%s holds no client key or token to look for", kubeconfig)
	}
	scratch := t.TempDir()
	env := append(os.Environ(), "HOME="+scratch, "TMPDIR="+scratch,
		"XDG_CACHE_HOME="+filepath.Join(scratch, "cache"), "XDG_CONFIG_HOME="+filepath.Join(scratch, "config"))
	for _, args := range [][]string{
		{"lint", "--kubeconfig", kubeconfig, lintData("clean.yaml")},
		{"doctor", "--kubeconfig", kubeconfig},
		{"net", "--kubeconfig", kubeconfig, "matrix"},
		{"image", "--kubeconfig", kubeconfig, "mcr.microsoft.com/windows/nanoserver:ltsc2019"},
		{"describe", "--kubeconfig", kubeconfig, "pod", "-n", "kube-system", "no-such-pod"},
	} {
		c := exec.Command(winkube, args...)
		c.Dir, c.Env = repoRoot, env
		out, err := c.CombinedOutput()
		if _, exited := err.(*exec.ExitError); err != nil && !exited {
			t.Fatalf("winkube %v: %v", args, err)
		}
		t.Logf("winkube %v: %s", args, firstLine(out))
	}
	err = filepath.WalkDir(scratch, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			for _, needle := range needles(s) {
				if bytes.Contains(data, needle) {
					t.Errorf("%s holds the kubeconfig's credentials", path)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// needles are the forms a copy of a secret takes: as it is, its PEM
// body's first line (a key re-encoded as PEM), and its base64 (a
// flattened kubeconfig's *-data fields).
func needles(secret []byte) [][]byte {
	out := [][]byte{secret, []byte(base64.StdEncoding.EncodeToString(secret))}
	if lines := bytes.Split(secret, []byte("\n")); len(lines) > 2 && len(lines[1]) > 0 {
		out = append(out, lines[1])
	}
	return out
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return string(line)
}
