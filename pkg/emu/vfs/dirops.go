package vfs

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"github.com/winkube/winkube/pkg/emu/program"
)

// errExists is create's report that the name appeared meanwhile.
var errExists = errors.New("exists")

// create adds a new inode where l (a missing name) says; extra is a
// symlink's target or a device's kind. It returns errExists with the
// inode found when the name exists after all.
func (f *FS) create(l loc, k kind, perm fs.FileMode, extra string) (*inode, error) {
	dir := l.dir.n
	if dir == nil {
		return l.node, errExists
	}
	t := dir.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	if dir.unlinked {
		return nil, syscall.ENOENT
	}
	if c := dir.child(l.name, f.windows); c != nil {
		return c, errExists
	}
	if f.readOnly(l.dir.m) {
		return nil, syscall.EROFS
	}
	if !f.may(dir, 3) {
		return nil, syscall.EACCES
	}
	uid, gid, umask := f.creator()
	if k == kindDir || k == kindFile {
		perm &^= umask
	}
	if dir.perm&fs.ModeSetgid != 0 {
		// As on Linux: a setgid directory (an fsGroup volume) gives its
		// group to new files and its setgid bit to new directories.
		gid = dir.gid
		if k == kindDir {
			perm |= fs.ModeSetgid
		}
	}
	now := f.s.now()
	n := newInode(t, k, f.normPerm(k, perm), uid, gid, now)
	if k == kindDevice {
		n.device = extra
	} else {
		n.target = extra
	}
	dir.link(l.name, n)
	dir.mtime = now
	return n, nil
}

// Mkdir makes a directory; perm is reduced by the umask.
func (f *FS) Mkdir(name string, perm fs.FileMode) error {
	l, err := f.resolve("mkdir", name, false)
	if err != nil {
		return err
	}
	if l.node != nil {
		return pathErr("mkdir", name, syscall.EEXIST)
	}
	if _, err := f.create(l, kindDir, perm, ""); err != nil {
		if err == errExists {
			err = syscall.EEXIST
		}
		return pathErr("mkdir", name, err)
	}
	return nil
}

// MkdirAll makes a directory and any missing parents.
func (f *FS) MkdirAll(name string, perm fs.FileMode) error {
	parts, ok := f.splitName(name)
	if !ok {
		return pathErr("mkdir", name, program.ErrPathNotFound)
	}
	for i := 1; i <= len(parts); i++ {
		p := f.display(parts[:i])
		if i == len(parts) {
			p = name
		}
		fi, err := f.Stat(p)
		if err == nil {
			if !fi.IsDir() {
				return pathErr("mkdir", p, syscall.ENOTDIR)
			}
			continue
		}
		if err := f.Mkdir(p, perm); err != nil {
			if fi, serr := f.Lstat(p); serr == nil && fi.IsDir() {
				continue // made meanwhile
			}
			return err
		}
	}
	return nil
}

// Symlink makes name a symlink to target (which need not exist).
func (f *FS) Symlink(target, name string) error {
	l, err := f.resolve("symlink", name, false)
	if err != nil {
		return err
	}
	if l.node != nil {
		return pathErr("symlink", name, syscall.EEXIST)
	}
	if _, err := f.create(l, kindSymlink, fs.ModePerm, target); err != nil {
		if err == errExists {
			err = syscall.EEXIST
		}
		return pathErr("symlink", name, err)
	}
	return nil
}

// Remove deletes a file, symlink or empty directory.
func (f *FS) Remove(name string) error {
	l, err := f.existing("remove", name, false)
	if err != nil {
		return err
	}
	if l.dir.n == nil {
		return pathErr("remove", name, syscall.EBUSY)
	}
	if f.readOnly(l.dir.m) {
		return pathErr("remove", name, syscall.EROFS)
	}
	if l.mounted {
		return pathErr("remove", name, syscall.EBUSY)
	}
	dir, n := l.dir.n, l.node
	t := dir.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	if n.parent != dir {
		return pathErr("remove", name, syscall.ENOENT)
	}
	if err := f.mayUnlink(dir, n); err != nil {
		return pathErr("remove", name, err)
	}
	if n.kind == kindDir && len(n.children) > 0 {
		return pathErr("remove", name, syscall.ENOTEMPTY)
	}
	n.unlink()
	dir.mtime = f.s.now()
	return nil
}

// mayUnlink checks the right to take n out of dir: write permission on
// dir, and in a sticky directory (/tmp) ownership of n or dir. The
// caller holds the lock.
func (f *FS) mayUnlink(dir, n *inode) error {
	if !f.may(dir, 3) || f.windows && !f.may(n, 2) {
		return syscall.EACCES
	}
	if dir.perm&fs.ModeSticky != 0 && f.enforced() && n.uid != f.s.opts.UID && dir.uid != f.s.opts.UID {
		return syscall.EPERM
	}
	return nil
}

// RemoveAll deletes a name and everything under it; a missing name is
// not an error. Mount points below it stay (EBUSY), as rm -rf finds.
func (f *FS) RemoveAll(name string) error {
	if name == "" {
		return pathErr("RemoveAll", name, syscall.EINVAL)
	}
	fi, err := f.Lstat(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if fi.IsDir() {
		entries, err := f.ReadDir(name)
		if err != nil {
			return err
		}
		var first error
		for _, e := range entries {
			if err := f.RemoveAll(f.Abs(name, e.Name())); err != nil && first == nil {
				first = err
			}
		}
		if first != nil {
			return first
		}
	}
	if err := f.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Rename moves a name within one layer; replacing an existing file or
// empty directory as rename(2) does.
func (f *FS) Rename(oldname, newname string) error {
	lerr := func(err error) error {
		if pe, ok := err.(*fs.PathError); ok {
			err = pe.Err
		}
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
	}
	src, err := f.existing("rename", oldname, false)
	if err != nil {
		return lerr(err)
	}
	dst, err := f.resolve("rename", newname, false)
	if err != nil {
		return lerr(err)
	}
	switch {
	case src.dir.n == nil || dst.dir.n == nil:
		return lerr(syscall.EBUSY)
	case f.readOnly(src.dir.m) || f.readOnly(dst.dir.m):
		return lerr(syscall.EROFS)
	case src.mounted || dst.mounted:
		return lerr(syscall.EBUSY)
	case src.dir.n.tree != dst.dir.n.tree || src.dir.m != dst.dir.m:
		return lerr(syscall.EXDEV)
	}
	t := src.dir.n.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := f.move(src, dst); err != nil {
		return lerr(err)
	}
	return nil
}

// move is Rename under the tree's lock.
func (f *FS) move(src, dst loc) error {
	n, from, to := src.node, src.dir.n, dst.dir.n
	if n.parent != from || to.unlinked {
		return syscall.ENOENT
	}
	if err := f.mayUnlink(from, n); err != nil {
		return err
	}
	if !f.may(to, 3) {
		return syscall.EACCES
	}
	if n.kind == kindDir && n.isAncestorOf(to) {
		return syscall.EINVAL
	}
	old := to.child(dst.name, f.windows)
	if old == n {
		if n.name != dst.name { // a change of case on Windows
			delete(from.children, n.name)
			from.link(dst.name, n)
		}
		return nil
	}
	if old != nil {
		switch {
		case n.kind == kindDir && old.kind != kindDir:
			return syscall.ENOTDIR
		case n.kind != kindDir && old.kind == kindDir:
			return syscall.EISDIR
		case old.kind == kindDir && len(old.children) > 0:
			return syscall.ENOTEMPTY
		}
		if err := f.mayUnlink(to, old); err != nil {
			return err
		}
		old.unlink()
	}
	delete(from.children, n.name)
	to.link(dst.name, n)
	now := f.s.now()
	from.mtime, to.mtime = now, now
	return nil
}
