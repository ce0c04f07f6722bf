package vfs

import (
	"io/fs"
	"syscall"
	"time"
)

// Stat describes a name, following symlinks.
func (f *FS) Stat(name string) (fs.FileInfo, error) { return f.stat("stat", name, true) }

// Lstat describes a name; a symlink is described itself.
func (f *FS) Lstat(name string) (fs.FileInfo, error) { return f.stat("lstat", name, false) }

func (f *FS) stat(op, name string, follow bool) (fs.FileInfo, error) {
	l, err := f.existing(op, name, follow)
	if err != nil {
		return nil, err
	}
	t := l.node.tree
	t.mu.RLock()
	defer t.mu.RUnlock()
	return l.node.info(f.baseName(name)), nil
}

// ReadDir lists a directory sorted by name. A mount point is listed as
// what is mounted there.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	l, err := f.existing("open", name, true)
	if err != nil {
		return nil, err
	}
	d := l.node
	if d.kind != kindDir {
		return nil, pathErr("readdirent", name, syscall.ENOTDIR)
	}
	mounts := f.mountTable()
	var mounted []*mount
	var at []int
	d.tree.mu.RLock()
	if !f.may(d, 4) {
		d.tree.mu.RUnlock()
		return nil, pathErr("open", name, syscall.EACCES)
	}
	children := d.sortedChildren()
	names := make([]string, len(children))
	list := make([]fs.DirEntry, len(children))
	for i, c := range children {
		names[i] = c.name
		if m, ok := mounts[f.key(l.key, c.name)]; ok {
			mounted, at = append(mounted, m), append(at, i)
			continue
		}
		list[i] = dirEntry{c.info(c.name)}
	}
	d.tree.mu.RUnlock()
	// Mounted roots live in other trees, locked one at a time, and a lazy
	// one is made here, outside this tree's lock.
	for j, m := range mounted {
		c, i := m.root(), at[j]
		c.tree.mu.RLock()
		list[i] = dirEntry{c.info(names[i])}
		c.tree.mu.RUnlock()
	}
	return list, nil
}

// Readlink is a symlink's target.
func (f *FS) Readlink(name string) (string, error) {
	l, err := f.existing("readlink", name, false)
	if err != nil {
		return "", err
	}
	if l.node.kind != kindSymlink {
		return "", pathErr("readlink", name, syscall.EINVAL)
	}
	return l.node.target, nil
}

// Chmod sets the permission, setuid, setgid and sticky bits.
func (f *FS) Chmod(name string, mode fs.FileMode) error {
	return f.setAttr("chmod", name, true, func(n *inode) error {
		if !f.owns(n) {
			return syscall.EPERM
		}
		n.perm = f.normPerm(n.kind, mode&modeBits)
		return nil
	})
}

// Chtimes sets the modification time.
func (f *FS) Chtimes(name string, mtime time.Time) error {
	return f.setAttr("chtimes", name, true, func(n *inode) error {
		if !f.owns(n) && !f.may(n, 2) {
			return syscall.EPERM
		}
		n.mtime = mtime
		return nil
	})
}

// Chown sets the numeric owner (-1 keeps one), following symlinks. Only
// root may.
func (f *FS) Chown(name string, uid, gid int64) error {
	return f.setAttr("chown", name, true, f.chown(uid, gid))
}

// Lchown is Chown of a symlink itself.
func (f *FS) Lchown(name string, uid, gid int64) error {
	return f.setAttr("lchown", name, false, f.chown(uid, gid))
}

func (f *FS) chown(uid, gid int64) func(*inode) error {
	return func(n *inode) error {
		if f.enforced() {
			return syscall.EPERM
		}
		if uid >= 0 {
			n.uid = uid
		}
		if gid >= 0 {
			n.gid = gid
		}
		return nil
	}
}

// setAttr changes an inode (symlinks followed) under its tree's lock.
func (f *FS) setAttr(op, name string, follow bool, change func(*inode) error) error {
	l, err := f.existing(op, name, follow)
	if err != nil {
		return err
	}
	if f.readOnly(l.m) {
		return pathErr(op, name, syscall.EROFS)
	}
	t := l.node.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := change(l.node); err != nil {
		return pathErr(op, name, err)
	}
	return nil
}

// normPerm is what a file's permissions become on this OS. Windows has
// only a read-only attribute: Go reports 0444 or 0666 for files, 0777
// for directories.
func (f *FS) normPerm(k kind, perm fs.FileMode) fs.FileMode {
	if !f.windows || k == kindDevice {
		return perm
	}
	if k == kindDir || k == kindSymlink {
		return 0o777
	}
	if perm&0o200 != 0 {
		return 0o666
	}
	return 0o444
}
