package vfs

import (
	"io/fs"
	"strings"
	"syscall"

	"github.com/winkube/winkube/pkg/emu/program"
)

// maxLinks is how many symlinks one lookup follows before ELOOP (Linux's
// limit).
const maxLinks = 40

// frame is a directory reached on the way to a name.
type frame struct {
	n   *inode
	key string // mount-table key of its path
	m   *mount // the layer it is in; nil for the root layer
}

// loc is where a name leads.
type loc struct {
	dir     frame  // the directory holding it; dir.n is nil for the root
	name    string // its last component, as given
	node    *inode // nil when it does not exist (dir and name say where it would)
	m       *mount // the layer node is in
	key     string
	mounted bool // node is the root of a mount
}

// resolve walks name through mounts and symlinks. Symlinks are followed
// on the way and, when follow is set, at the end too. A missing last
// component is not an error: loc.node is nil.
func (f *FS) resolve(op, name string, follow bool) (loc, error) {
	parts, ok := f.splitName(name)
	if !ok {
		return loc{}, pathErr(op, name, program.ErrPathNotFound)
	}
	mounts := f.mountTable()
	stack := []frame{{n: f.s.root}}
	links := 0
	for len(parts) > 0 {
		c := parts[0]
		parts = parts[1:]
		if c == "." {
			continue
		}
		if c == ".." {
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		top := stack[len(stack)-1]
		if top.n.kind != kindDir {
			if f.windows { // Windows sees no path through a file
				return loc{}, pathErr(op, name, program.ErrPathNotFound)
			}
			return loc{}, pathErr(op, name, syscall.ENOTDIR)
		}
		last := len(parts) == 0
		next := frame{key: f.key(top.key, c), m: top.m}
		m, mounted := mounts[next.key]
		switch {
		case mounted:
			next.n, next.m = m.root(), m
		case last && f.windows && isNul(c):
			next.n = nulDevice
		default:
			t := top.n.tree
			t.mu.RLock()
			next.n = top.n.child(c, f.windows)
			t.mu.RUnlock()
		}
		if next.n == nil {
			if last {
				return loc{dir: top, name: c, m: top.m, key: next.key}, nil
			}
			return loc{}, f.notFound(op, name)
		}
		if next.n.kind == kindSymlink && (!last || follow) {
			if links++; links > maxLinks {
				return loc{}, pathErr(op, name, syscall.ELOOP)
			}
			tp, abs, ok := f.targetParts(next.n.target)
			if !ok {
				return loc{}, pathErr(op, name, program.ErrPathNotFound)
			}
			if abs {
				stack = stack[:1]
			}
			parts = append(tp, parts...)
			continue
		}
		if last {
			return loc{dir: top, name: c, node: next.n, m: next.m, key: next.key, mounted: mounted}, nil
		}
		stack = append(stack, next)
	}
	// The name ended at a directory already on the stack: the root, or a
	// symlink whose target ends in . or ..
	top := stack[len(stack)-1]
	l := loc{node: top.n, m: top.m, key: top.key, mounted: top.m != nil && top.m.root() == top.n}
	if len(stack) > 1 {
		l.dir = stack[len(stack)-2]
	}
	return l, nil
}

// notFound is ENOENT for a missing directory on the way; Windows words
// it apart.
func (f *FS) notFound(op, name string) error {
	if f.windows {
		return pathErr(op, name, program.ErrPathNotFound)
	}
	return pathErr(op, name, syscall.ENOENT)
}

// existing resolves a name that must exist.
func (f *FS) existing(op, name string, follow bool) (loc, error) {
	l, err := f.resolve(op, name, follow)
	if err == nil && l.node == nil {
		err = pathErr(op, name, syscall.ENOENT)
	}
	return l, err
}

func pathErr(op, name string, err error) error {
	return &fs.PathError{Op: op, Path: name, Err: err}
}

// isNul reports whether a Windows name is the NUL device, which exists in
// every directory (NUL, nul.txt).
func isNul(name string) bool {
	if i := strings.IndexByte(name, '.'); i >= 0 {
		name = name[:i]
	}
	return strings.EqualFold(strings.TrimRight(name, " "), "nul")
}

// baseName is the last component of a name, as Stat names its result.
func (f *FS) baseName(name string) string {
	if f.windows {
		_, name = splitDrive(name)
	}
	parts := splitParts(name, f.windows)
	if len(parts) == 0 {
		if f.windows {
			return `\`
		}
		return "/"
	}
	return parts[len(parts)-1]
}
