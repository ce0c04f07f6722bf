package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestNameToDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	// The default name keeps the data dir winkube used before names.
	for name, want := range map[string]string{
		DefaultName: filepath.Join(home, ".winkube", "default"),
		"t1":        filepath.Join(home, ".winkube", "t1"),
	} {
		if got, err := ForName(name); err != nil || got != want {
			t.Errorf("ForName(%s) = %s, %v; want %s", name, got, err, want)
		}
	}
	if d, _ := Default(); d != filepath.Join(home, ".winkube", "default") {
		t.Errorf("Default() = %s", d)
	}
	for _, c := range []struct{ name, dataDir, want string }{
		{"", "", filepath.Join(home, ".winkube", "default")},
		{"t1", "", filepath.Join(home, ".winkube", "t1")},
		{"", "/x/y", "/x/y"},
	} {
		if got, err := Target(c.name, c.dataDir); err != nil || got != c.want {
			t.Errorf("Target(%q, %q) = %s, %v; want %s", c.name, c.dataDir, got, err, c.want)
		}
	}
	if _, err := Target("t1", "/x"); err == nil {
		t.Error("a name and --data-dir together should be refused")
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"winkube", "t1", "a", "dev-2"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%s): %v", ok, err)
		}
	}
	// "default" is the directory of the cluster named winkube.
	for _, bad := range []string{"", "Dev", "-a", "a-", "a/b", "..", "a_b", "default"} {
		if err := CheckName(bad); err == nil {
			t.Errorf("CheckName(%q) accepted", bad)
		}
	}
}

func TestRegisterListUnregister(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if l, err := List(); err != nil || len(l) != 0 {
		t.Fatalf("List() without ~/.winkube = %v, %v", l, err)
	}
	def := makeDataDir(t, filepath.Join(home, ".winkube", "default"))
	elsewhere := makeDataDir(t, filepath.Join(t.TempDir(), "t1"))
	if err := Register("t1", elsewhere); err != nil {
		t.Fatal(err)
	}
	// Registering the default cluster in its own dir adds nothing.
	if err := Register(DefaultName, def); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(home, ".winkube", "notacluster"), 0o755)
	l, err := List()
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 2 || l[0].Name != "t1" || l[0].Dir != elsewhere || l[1].Name != DefaultName || l[1].Dir != def {
		t.Errorf("List() = %+v", l)
	}
	// Another data dir cannot take a live cluster's name.
	other := makeDataDir(t, filepath.Join(t.TempDir(), "other"))
	var taken *NameTakenError
	if err := Register("t1", other); !errors.As(err, &taken) || taken.Dir != elsewhere {
		t.Errorf("Register of a taken name: %v", err)
	}
	if err := Register(DefaultName, other); !errors.As(err, &taken) {
		t.Errorf("Register over the default dir: %v", err)
	}
	// Unregister leaves a link that leads elsewhere, removes its own.
	if err := Unregister("t1", other); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(home, ".winkube", "t1")); err != nil {
		t.Error("Unregister removed another cluster's link")
	}
	if err := Unregister("t1", elsewhere); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(home, ".winkube", "t1")); !os.IsNotExist(err) {
		t.Error("the link is still there")
	}
	// A stale link (its data dir deleted) is replaced.
	Register("t1", elsewhere)
	os.RemoveAll(elsewhere)
	if err := Register("t1", other); err != nil {
		t.Errorf("replacing a stale link: %v", err)
	}
}

func TestNameFile(t *testing.T) {
	dir := t.TempDir()
	if ReadName(dir) != "" {
		t.Error("a dir without a name file has no name")
	}
	if err := WriteName(dir, "t1"); err != nil {
		t.Fatal(err)
	}
	if ReadName(dir) != "t1" {
		t.Errorf("ReadName = %q", ReadName(dir))
	}
}

func TestLogFileDoesNotMakeADirNonEmpty(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, LogFile), []byte("starting\n"), 0o644)
	if err := CheckUsable(dir); err != nil {
		t.Errorf("a dir with only the background log: %v", err)
	}
	if empty, _ := IsEmptyOrMissing(dir); !empty {
		t.Error("a dir with only the background log counts as fresh")
	}
}
