// Package datadir knows where a cluster's state lives on disk.
package datadir

import (
	"fmt"
	"os"
	"path/filepath"
)

// Default is the data dir used when --data-dir is not given: ~/.winkube/default.
func Default() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the home directory for the default data dir (set --data-dir): %w", err)
	}
	return filepath.Join(home, ".winkube", "default"), nil
}

// Resolve returns dir made absolute, or the default when dir is empty.
func Resolve(dir string) (string, error) {
	if dir == "" {
		return Default()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolving --data-dir %q: %w", dir, err)
	}
	return abs, nil
}

// Kubeconfig is the admin kubeconfig of the cluster in dir.
func Kubeconfig(dir string) string { return filepath.Join(dir, "kubeconfig") }
