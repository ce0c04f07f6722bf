package datadir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// DefaultName is the cluster name when --name is not given. Its data dir
// is ~/.winkube/default, the one winkube used before clusters had names,
// so an existing default cluster keeps working under the new name.
const DefaultName = "winkube"

// Files a data dir holds beside the markers: the cluster's name (for
// `winkube down --data-dir`, which must know which kubeconfig context to
// remove) and the log of a cluster running in the background.
const (
	NameFile = "name"
	LogFile  = "winkube.log"
	// ImagesDir holds image facts (pkg/imageinfo/facts): those `winkube
	// image import` stores, which may come before the cluster, and the
	// registry answers kept for offline use.
	ImagesDir = "images"
)

// defaultDirName is the directory of the cluster named DefaultName.
const defaultDirName = "default"

// nameRE is a DNS label (as kind accepts): names become kubeconfig
// contexts (winkube-<name>) and directory names.
var nameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// CheckName says what is wrong with a cluster name, or returns nil.
func CheckName(name string) error {
	if !nameRE.MatchString(name) || len(name) > 63 {
		return fmt.Errorf("cluster name %q: want lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters", name)
	}
	if name == defaultDirName {
		return fmt.Errorf("cluster name %q is reserved: ~/.winkube/default is the data dir of the cluster named %s", name, DefaultName)
	}
	return nil
}

// Root is ~/.winkube, which holds the clusters that have names.
func Root() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", fmt.Errorf("finding the home directory for the default data dir (set --data-dir): %w", err)
	}
	return filepath.Join(home, ".winkube"), nil
}

// ForName is the data dir of the cluster called name: ~/.winkube/<name>,
// and ~/.winkube/default for DefaultName. The entry is a symlink when the
// cluster was started with --name and --data-dir elsewhere (Register).
func ForName(name string) (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	if name == DefaultName {
		return filepath.Join(root, defaultDirName), nil
	}
	return filepath.Join(root, name), nil
}

// nameOfEntry is the cluster name of an entry of Root.
func nameOfEntry(entry string) string {
	if entry == defaultDirName {
		return DefaultName
	}
	return entry
}

// Target is the data dir a command about one cluster acts on: --data-dir
// when given, else the named cluster's, else the default cluster's. A
// name and a data dir together are a usage error.
func Target(name, dataDir string) (string, error) {
	if name != "" && dataDir != "" {
		return "", fmt.Errorf("give a cluster NAME or --data-dir, not both")
	}
	if dataDir != "" {
		return Resolve(dataDir)
	}
	if name == "" {
		name = DefaultName
	}
	if err := CheckName(name); err != nil {
		return "", err
	}
	return ForName(name)
}

// ReadName is the cluster name recorded in dir; "" when none is (a data
// dir of an older winkube, or one never started).
func ReadName(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, NameFile))
	if err != nil {
		return ""
	}
	name := strings.TrimSpace(string(data))
	if CheckName(name) != nil && name != DefaultName {
		return ""
	}
	return name
}

// WriteName records the cluster name in dir.
func WriteName(dir, name string) error {
	if err := os.WriteFile(filepath.Join(dir, NameFile), []byte(name+"\n"), 0o644); err != nil {
		return fmt.Errorf("recording the cluster name in %s: %w", dir, err)
	}
	return nil
}

// NameTakenError says that a name belongs to another data dir.
type NameTakenError struct{ Name, Dir string }

func (e *NameTakenError) Error() string {
	return fmt.Sprintf("--name %s: a cluster of that name already lives in %s (delete it with `winkube down %s`, or choose another --name)", e.Name, e.Dir, e.Name)
}

// CheckNameFree returns a *NameTakenError when name's entry under Root
// is another data dir than dir.
func CheckNameFree(name, dir string) error {
	entry, err := ForName(name)
	if err != nil {
		return err
	}
	other, ok := dataDirAt(entry)
	if !ok || other == resolved(dir) {
		return nil
	}
	return &NameTakenError{Name: name, Dir: other}
}

// Register makes name find dir: a symlink ~/.winkube/<name> → dir, when
// dir is not that entry already. A stale link (its target gone or no data
// dir) is replaced.
func Register(name, dir string) error {
	if err := CheckNameFree(name, dir); err != nil {
		return err
	}
	entry, err := ForName(name)
	if err != nil {
		return err
	}
	if resolved(entry) == resolved(dir) {
		return nil
	}
	if info, err := os.Lstat(entry); err == nil {
		if info.Mode()&os.ModeSymlink == 0 {
			return &NameTakenError{Name: name, Dir: entry}
		}
		if err := os.Remove(entry); err != nil {
			return fmt.Errorf("replacing the stale link %s: %w", entry, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(entry), 0o755); err != nil {
		return fmt.Errorf("registering cluster %s: %w", name, err)
	}
	if err := os.Symlink(dir, entry); err != nil {
		return fmt.Errorf("registering cluster %s: %w", name, err)
	}
	return nil
}

// Unregister removes name's link when it leads to dir (or nowhere). It
// never removes a directory.
func Unregister(name, dir string) error {
	entry, err := ForName(name)
	if err != nil {
		return err
	}
	info, err := os.Lstat(entry)
	if err != nil || info.Mode()&os.ModeSymlink == 0 {
		return nil
	}
	// A link that leads elsewhere names another live cluster.
	if _, err := os.Stat(entry); err == nil && resolved(entry) != resolved(dir) {
		return nil
	}
	if err := os.Remove(entry); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing the link %s: %w", entry, err)
	}
	return nil
}

// dataDirAt is the real path of the data dir at path, if one is there.
func dataDirAt(path string) (string, bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", false
	}
	if info, err := os.Stat(real); err != nil || !info.IsDir() || !has(real, LockFile) {
		return "", false
	}
	return real, true
}
