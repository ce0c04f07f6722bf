package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// makeDataDir writes the two files `winkube up` leaves in a data dir.
func makeDataDir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "etcd"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{LockFile, ConfigFile} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func refusal(t *testing.T, err error) string {
	t.Helper()
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("want a *RefusedError, got %v", err)
	}
	return err.Error()
}

func TestCheckRemovableAcceptsDataDir(t *testing.T) {
	dir := makeDataDir(t, filepath.Join(t.TempDir(), "default"))
	if err := CheckRemovable(dir); err != nil {
		t.Fatal(err)
	}
}

func TestCheckRemovableRefusesSourceTree(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	msg := refusal(t, CheckRemovable(dir))
	for _, want := range []string{dir, "not a winkube data dir", "no winkube.lock and no cluster.yaml"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	// A config alone (someone's cluster.yaml) is not enough either.
	os.WriteFile(filepath.Join(dir, ConfigFile), nil, 0o644)
	if msg := refusal(t, CheckRemovable(dir)); !strings.Contains(msg, "no winkube.lock") || strings.Contains(msg, "no cluster.yaml") {
		t.Errorf("message %q should name only the lock", msg)
	}
}

func TestCheckRemovableRefusesAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	if msg := refusal(t, CheckRemovable(file)); !strings.Contains(msg, "not a directory") {
		t.Error(msg)
	}
}

func TestCheckRemovableRefusesRootHomeAndCwd(t *testing.T) {
	if msg := refusal(t, CheckRemovable("/")); !strings.Contains(msg, "root directory") {
		t.Error(msg)
	}
	// Home and the current directory are refused even with the markers.
	home := makeDataDir(t, t.TempDir())
	t.Setenv("HOME", home)
	if msg := refusal(t, CheckRemovable(home)); !strings.Contains(msg, "your home directory") {
		t.Error(msg)
	}
	if msg := refusal(t, CheckRemovable(filepath.Dir(home))); !strings.Contains(msg, "holds your home directory") {
		t.Error(msg)
	}
	cwd := makeDataDir(t, t.TempDir())
	t.Chdir(filepath.Join(cwd, "etcd"))
	if msg := refusal(t, CheckRemovable(cwd)); !strings.Contains(msg, "holds the current directory") {
		t.Error(msg)
	}
	// A symlink to the home directory is the home directory.
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(home, link)
	if msg := refusal(t, CheckRemovable(link)); !strings.Contains(msg, "your home directory") {
		t.Error(msg)
	}
}

func TestCheckUsable(t *testing.T) {
	base := t.TempDir()
	if err := CheckUsable(filepath.Join(base, "new")); err != nil {
		t.Errorf("a new dir: %v", err)
	}
	empty := filepath.Join(base, "empty")
	os.Mkdir(empty, 0o755)
	if err := CheckUsable(empty); err != nil {
		t.Errorf("an empty dir: %v", err)
	}
	if err := CheckUsable(makeDataDir(t, filepath.Join(base, "data"))); err != nil {
		t.Errorf("a data dir: %v", err)
	}
	// Image facts imported before the first up: the dir is the cluster's,
	// and not one a failed first start may remove.
	imported := filepath.Join(base, "imported")
	os.MkdirAll(filepath.Join(imported, ImagesDir), 0o755)
	if err := CheckUsable(imported); err != nil {
		t.Errorf("a dir of imported image facts: %v", err)
	}
	if empty, _ := IsEmptyOrMissing(imported); empty {
		t.Error("a dir of imported image facts is empty to a failed first start")
	}
	project := filepath.Join(base, "project")
	os.Mkdir(project, 0o755)
	os.WriteFile(filepath.Join(project, "go.mod"), nil, 0o644)
	if msg := refusal(t, CheckUsable(project)); !strings.Contains(msg, "not empty") || !strings.Contains(msg, "--data-dir") {
		t.Error(msg)
	}
}

func TestIsEmptyOrMissing(t *testing.T) {
	dir := t.TempDir()
	for path, want := range map[string]bool{dir: true, filepath.Join(dir, "none"): true} {
		if got, err := IsEmptyOrMissing(path); err != nil || got != want {
			t.Errorf("IsEmptyOrMissing(%s) = %v, %v", path, got, err)
		}
	}
	os.WriteFile(filepath.Join(dir, "x"), nil, 0o644)
	if got, _ := IsEmptyOrMissing(dir); got {
		t.Error("a dir with a file is not empty")
	}
}
