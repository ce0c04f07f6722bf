package kubeconfig

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeConfig writes a kubeconfig with one cluster, user and context
// called id.
func writeConfig(t *testing.T, path, id, server string, ca []byte) {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[id] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos[id] = &clientcmdapi.AuthInfo{Token: "token-" + id}
	cfg.Contexts[id] = &clientcmdapi.Context{Cluster: id, AuthInfo: id, Namespace: "ns-" + id}
	cfg.CurrentContext = id
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) *clientcmdapi.Config {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// others is everything in cfg except the entries of winkube-<name>.
func others(cfg *clientcmdapi.Config, name string) [3]map[string]string {
	var out [3]map[string]string
	for i := range out {
		out[i] = map[string]string{}
	}
	for k, v := range cfg.Clusters {
		if k != ContextName(name) {
			out[0][k] = v.Server + string(v.CertificateAuthorityData)
		}
	}
	for k, v := range cfg.AuthInfos {
		if k != ContextName(name) {
			out[1][k] = v.Token
		}
	}
	for k, v := range cfg.Contexts {
		if k != ContextName(name) {
			out[2][k] = v.Cluster + "/" + v.AuthInfo + "/" + v.Namespace
		}
	}
	return out
}

func TestMergeAndRemoveLeaveOtherEntries(t *testing.T) {
	dir := t.TempDir()
	admin := filepath.Join(dir, "admin")
	writeConfig(t, admin, "winkube", "https://127.0.0.1:6443", []byte("our CA"))
	user := filepath.Join(dir, "config")
	writeConfig(t, user, "prod", "https://prod.example:443", []byte("prod CA"))
	before := others(read(t, user), "t1")

	if err := Merge(user, admin, "t1"); err != nil {
		t.Fatal(err)
	}
	merged := read(t, user)
	if merged.CurrentContext != "winkube-t1" {
		t.Errorf("current context %q, want winkube-t1", merged.CurrentContext)
	}
	c := merged.Clusters["winkube-t1"]
	if c == nil || c.Server != "https://127.0.0.1:6443" || string(c.CertificateAuthorityData) != "our CA" {
		t.Errorf("cluster entry %+v", c)
	}
	if ctx := merged.Contexts["winkube-t1"]; ctx == nil || ctx.Cluster != "winkube-t1" || ctx.AuthInfo != "winkube-t1" {
		t.Errorf("context entry %+v", ctx)
	}
	if got := others(merged, "t1"); !reflect.DeepEqual(got, before) {
		t.Errorf("other entries changed:\n%v\nwant\n%v", got, before)
	}
	assertMode(t, user, 0o600)

	// Another cluster's CA: its entries are not ours to remove.
	if removed, err := Remove(user, "t1", []byte("another CA")); err != nil || removed {
		t.Errorf("Remove with another CA = %v, %v", removed, err)
	}
	if removed, err := Remove(user, "t1", []byte("our CA")); err != nil || !removed {
		t.Fatalf("Remove = %v, %v", removed, err)
	}
	after := read(t, user)
	if after.Clusters["winkube-t1"] != nil || after.AuthInfos["winkube-t1"] != nil || after.Contexts["winkube-t1"] != nil {
		t.Error("winkube-t1 entries left behind")
	}
	if after.CurrentContext != "" {
		t.Errorf("current context %q still names the removed context", after.CurrentContext)
	}
	if got := others(after, "t1"); !reflect.DeepEqual(got, before) {
		t.Errorf("other entries changed:\n%v\nwant\n%v", got, before)
	}
	assertMode(t, user, 0o600)
	if _, err := os.Stat(user + ".lock"); !os.IsNotExist(err) {
		t.Error("the lock file was left behind")
	}
}

func TestMergeCreatesFileAndKeepsMode(t *testing.T) {
	dir := t.TempDir()
	admin := filepath.Join(dir, "admin")
	writeConfig(t, admin, "winkube", "https://127.0.0.1:1", []byte("ca"))
	fresh := filepath.Join(dir, "new", ".kube", "config")
	if err := Merge(fresh, admin, "winkube"); err != nil {
		t.Fatal(err)
	}
	assertMode(t, fresh, 0o600)
	if read(t, fresh).CurrentContext != "winkube-winkube" {
		t.Error("current context not set")
	}
	// A symlinked kubeconfig stays a symlink; its target is updated.
	target := filepath.Join(dir, "real-config")
	writeConfig(t, target, "prod", "https://prod:443", nil)
	link := filepath.Join(dir, "link-config")
	os.Symlink(target, link)
	if err := Merge(link, admin, "t2"); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Lstat(link); info.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if read(t, target).Contexts["winkube-t2"] == nil {
		t.Error("the link's target lacks the merged context")
	}
}

func TestRemoveMissingFile(t *testing.T) {
	removed, err := Remove(filepath.Join(t.TempDir(), "none"), "t1", nil)
	if err != nil || removed {
		t.Errorf("Remove of a missing file = %v, %v", removed, err)
	}
}

func TestPath(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	t.Setenv("KUBECONFIG", "")
	if p, _ := Path(); p != "/home/u/.kube/config" {
		t.Errorf("Path() = %s", p)
	}
	t.Setenv("KUBECONFIG", string(filepath.ListSeparator)+"/a/first"+string(filepath.ListSeparator)+"/b/second")
	if p, _ := Path(); p != "/a/first" {
		t.Errorf("Path() = %s, want the first file of $KUBECONFIG", p)
	}
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != want {
		t.Errorf("%s has mode %v, want %v", path, info.Mode().Perm(), want)
	}
}
