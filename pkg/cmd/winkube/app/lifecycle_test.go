package app

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// dataDir makes a directory holding what `winkube up` leaves in a data dir.
func dataDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cluster")
	if err := os.MkdirAll(filepath.Join(dir, "etcd"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "winkube.lock"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "cluster.yaml"), []byte("apiVersion: winkube.io/v1alpha1\nkind: Cluster\n"), 0o644)
	return dir
}

// `cd myproject && winkube down --data-dir .` deleted the source tree.
// Down refuses any directory that is not a data dir, names what is
// missing, exits 2, and no flag gets around it.
func TestDownRefusesAProject(t *testing.T) {
	project := t.TempDir()
	os.WriteFile(filepath.Join(project, "go.mod"), []byte("module x\n"), 0o644)
	for _, args := range [][]string{
		{"down", "--data-dir", project},
		{"down", "--data-dir", project, "--force"},
	} {
		code, out, errOut := run(t, args...)
		if code != 2 || out != "" {
			t.Errorf("%v: code %d, stdout %q", args, code, out)
		}
		if args[len(args)-1] != "--force" && (!strings.Contains(errOut, project) || !strings.Contains(errOut, "no winkube.lock and no cluster.yaml")) {
			t.Errorf("%v: stderr %q should name the dir and what it lacks", args, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(project, "go.mod")); err != nil {
		t.Fatalf("the project lost its files: %v", err)
	}
}

func TestDownRefusesHomeAndRoot(t *testing.T) {
	home := dataDir(t) // looks like a data dir, still refused
	t.Setenv("HOME", home)
	for dir, want := range map[string]string{home: "your home directory", "/": "root directory"} {
		code, _, errOut := run(t, "down", "--data-dir", dir)
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("down %s: code %d, stderr %q", dir, code, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "cluster.yaml")); err != nil {
		t.Fatal("home was deleted")
	}
}

func TestDownDeletesADataDir(t *testing.T) {
	dir := dataDir(t)
	code, out, errOut := run(t, "down", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "Deleted "+dir) || errOut != "" {
		t.Errorf("down: %d %q %q", code, out, errOut)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Error("the data dir survived")
	}
}

// Bad flags, a directory that is not a data dir, and bad --apply inputs
// are usage errors found before anything starts: exit 2, nothing printed
// on stdout, no data dir created.
func TestUpChecksEverythingBeforeStarting(t *testing.T) {
	base := t.TempDir()
	newDir := filepath.Join(base, "data")
	tabs := filepath.Join(base, "tabs.yaml")
	os.WriteFile(tabs, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: x\n"), 0o644)
	typo := filepath.Join(base, "typo.yaml")
	os.WriteFile(typo, []byte("apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: web}\n"), 0o644)
	binary := filepath.Join(base, "app.yaml")
	os.WriteFile(binary, []byte("\x7fELF\x02\x01\x01\x00\x00\x00"), 0o644)
	project := filepath.Join(base, "project")
	os.Mkdir(project, 0o755)
	os.WriteFile(filepath.Join(project, "main.go"), nil, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--wait", "-5s"}, "--wait -5s"},
		{[]string{"--wait", "0s"}, "--wait 0s"},
		{[]string{"--port", "99999"}, "--port 99999"},
		{[]string{"--port", "-1"}, "--port -1"},
		{[]string{"--port", "http"}, "--port"},
		{[]string{"--apply", tabs}, tabs + ":4: yaml"},
		{[]string{"--apply", typo}, `no matches for kind "Deploymnet" in version "apps/v1"`},
		{[]string{"--apply", binary}, binary + ":1"},
		{[]string{"--apply", filepath.Join(base, "missing")}, "missing: stat"},
		{[]string{"--data-dir", project}, "refusing to use " + project},
	} {
		args := append([]string{"up", "--data-dir", newDir}, c.args...)
		code, out, errOut := run(t, args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, stdout %q, stderr %q (want %q)", c.args, code, out, errOut, c.want)
		}
		if _, err := os.Stat(newDir); !os.IsNotExist(err) {
			t.Fatalf("%v created the data dir", c.args)
		}
	}
	if entries, _ := os.ReadDir(project); len(entries) != 1 {
		t.Errorf("up wrote into the project: %v", entries)
	}
}

// A first start that fails (here: the apiserver port is taken) removes
// what it created; a data dir that existed before is kept.
func TestFailedFirstStartRemovesWhatItCreated(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	newDir := filepath.Join(t.TempDir(), "data")
	empty := t.TempDir()
	existing := dataDir(t)
	for _, dir := range []string{newDir, empty, existing} {
		code, _, errOut := run(t, "up", "--data-dir", dir, "--port", port)
		if code != 1 || !strings.Contains(errOut, "port "+port) || !strings.Contains(errOut, "--port") {
			t.Errorf("up on %s: code %d, stderr %q", dir, code, errOut)
		}
	}
	if _, err := os.Stat(newDir); !os.IsNotExist(err) {
		t.Errorf("a new data dir was left behind: %v", err)
	}
	if entries, err := os.ReadDir(empty); err != nil || len(entries) != 0 {
		t.Errorf("an empty dir given as data dir: %v %v (want it kept, empty)", entries, err)
	}
	for _, name := range []string{"etcd", "cluster.yaml", "winkube.lock"} {
		if _, err := os.Stat(filepath.Join(existing, name)); err != nil {
			t.Errorf("the existing data dir lost %s", name)
		}
	}
}
