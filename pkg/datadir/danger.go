package datadir

import (
	"os"
	"path/filepath"
	"strings"
)

// dangerous names why deleting dir (a path with symlinks resolved) would
// lose more than a cluster, or returns "": the root, the home directory,
// the current directory, or a directory holding either.
func dangerous(dir string) string {
	if filepath.Dir(dir) == dir {
		return "it is the root directory"
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if reason := holds(dir, resolved(home), "your home directory"); reason != "" {
			return reason
		}
	}
	if cwd, err := os.Getwd(); err == nil {
		if reason := holds(dir, resolved(cwd), "the current directory"); reason != "" {
			return reason + " (cd elsewhere first)"
		}
	}
	return ""
}

// holds says whether dir is other or one of its ancestors.
func holds(dir, other, what string) string {
	if dir == other {
		return "it is " + what
	}
	rel, err := filepath.Rel(dir, other)
	if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "it holds " + what + " " + other
	}
	return ""
}

// resolved is path with symlinks resolved, or path itself when that fails.
func resolved(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return filepath.Clean(path)
}
