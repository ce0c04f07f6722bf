package vfs

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"time"
)

// Volume is a tree that outlives containers and can be mounted into
// several FSes at once: an emptyDir shared by a pod's containers, a PVC
// kept across pods, a node's hostPath. Its methods are the kubelet's:
// they take slash paths relative to the volume's root and ignore
// read-only mounts.
type Volume struct {
	fs *FS // the kubelet's view: Linux syntax, privileged, rooted here
}

// VolumeOptions describe a volume.
type VolumeOptions struct {
	// Clock stamps what the kubelet writes; nil is the wall clock.
	// (Containers stamp their writes with their own FS's clock.)
	Clock interface{ Now() time.Time }
	// Limit is the most bytes of file data it holds, beyond which
	// writes fail with ENOSPC (a sized memory-backed emptyDir); 0 is no
	// limit.
	Limit int64
	// Memory backs the volume with RAM, as the kubelet backs an emptyDir
	// of medium Memory and its secret, downwardAPI and projected
	// volumes: statfs reports the files of its mounts as Tmpfs.
	Memory bool
}

// NewVolume makes an empty volume: a root directory with mode 0777, as
// the kubelet makes an emptyDir.
func NewVolume() *Volume { return NewVolumeWith(VolumeOptions{}) }

// NewVolumeWith makes an empty volume with options.
func NewVolumeWith(opts VolumeOptions) *Volume {
	s := &shared{opts: Options{Clock: opts.Clock}}
	t := &tree{limit: opts.Limit}
	if opts.Memory {
		t.fsType = Tmpfs
	}
	s.root = newInode(t, kindDir, 0o777, 0, 0, s.now())
	return &Volume{fs: &FS{s: s, priv: true}}
}

// FS is the kubelet's view of the volume, for what the methods below do
// not cover (Lstat, ReadDir, Rename of an atomic-writer update).
func (v *Volume) FS() *FS { return v.fs }

func (v *Volume) abs(rel string) string { return v.fs.Abs("/", rel) }

// WriteFile creates or replaces a file's content and sets its mode
// exactly.
func (v *Volume) WriteFile(rel string, data []byte, perm fs.FileMode) error {
	name := v.abs(rel)
	f, err := v.fs.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return v.fs.Chmod(name, perm)
}

// MkdirAll makes a directory and its parents with mode perm.
func (v *Volume) MkdirAll(rel string, perm fs.FileMode) error {
	return v.fs.MkdirAll(v.abs(rel), perm)
}

// Symlink makes rel a symlink to target.
func (v *Volume) Symlink(target, rel string) error { return v.fs.Symlink(target, v.abs(rel)) }

// Chown sets the owner of rel itself (a symlink is not followed); -1
// keeps an ID.
func (v *Volume) Chown(rel string, uid, gid int64) error { return v.fs.Lchown(v.abs(rel), uid, gid) }

// Chmod sets the mode of rel ("" is the volume's root).
func (v *Volume) Chmod(rel string, perm fs.FileMode) error { return v.fs.Chmod(v.abs(rel), perm) }

// Remove deletes rel and everything under it.
func (v *Volume) Remove(rel string) error { return v.fs.RemoveAll(v.abs(rel)) }

// Rename moves oldrel to newrel, replacing it (the atomic writer's swap
// of ..data).
func (v *Volume) Rename(oldrel, newrel string) error {
	return v.fs.Rename(v.abs(oldrel), v.abs(newrel))
}

// Mount shows a volume at path, or the file or directory at subPath in
// it (made as a directory when missing, as the kubelet does). The mount
// point is made when missing, a directory or an empty file as what is
// mounted. The mount shadows what is below it; a read-only mount refuses
// writes with EROFS.
func (f *FS) Mount(path string, v *Volume, subPath string, readOnly bool) error {
	root, err := v.subPath(subPath)
	if err != nil {
		return err
	}
	point, err := f.mountPoint(path, root.kind == kindDir)
	if err != nil {
		return err
	}
	f.setMount(point, &mount{key: point, root: func() *inode { return root }, readOnly: readOnly})
	return nil
}

// MountLazy shows at path, a directory, the root of the volume open
// returns, calling open only when a lookup first passes the mount point:
// a volume made from API objects (a service account token is a
// TokenRequest) costs nothing in a container that never looks at it.
// Listing the directory that holds path counts as looking.
func (f *FS) MountLazy(path string, open func() *Volume, readOnly bool) error {
	point, err := f.mountPoint(path, true)
	if err != nil {
		return err
	}
	root := sync.OnceValue(func() *inode {
		v := open()
		if v == nil {
			v = NewVolume()
		}
		return v.fs.s.root
	})
	f.setMount(point, &mount{key: point, root: root, readOnly: readOnly})
	return nil
}

// Unmount removes the mount at path.
func (f *FS) Unmount(path string) error {
	l, err := f.existing("umount", path, true)
	if err != nil {
		return err
	}
	if !l.mounted {
		return pathErr("umount", path, syscall.EINVAL)
	}
	f.setMount(l.key, nil)
	return nil
}

// subPath finds (or makes) what a mount of the volume shows.
func (v *Volume) subPath(sub string) (*inode, error) {
	name := v.abs(sub)
	if _, err := v.fs.Stat(name); errors.Is(err, fs.ErrNotExist) {
		root := v.fs.s.root
		root.tree.mu.RLock()
		perm := root.perm
		root.tree.mu.RUnlock()
		if err := v.fs.MkdirAll(name, perm); err != nil {
			return nil, err
		}
	}
	l, err := v.fs.existing("mount", name, true)
	return l.node, err
}

// mountPoint makes sure path exists as a directory (dir) or a file and
// returns its mount-table key.
func (f *FS) mountPoint(path string, dir bool) (string, error) {
	p := f.Privileged()
	if _, err := p.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if err := p.makeMountPoint(path, dir); err != nil {
			return "", err
		}
	}
	l, err := p.existing("mount", path, true)
	if err != nil {
		return "", err
	}
	switch isDir := l.node.kind == kindDir; {
	case l.dir.n == nil:
		return "", pathErr("mount", path, syscall.EBUSY) // the root
	case dir && !isDir:
		return "", pathErr("mount", path, syscall.ENOTDIR)
	case !dir && isDir:
		return "", pathErr("mount", path, syscall.EISDIR)
	}
	return l.key, nil
}

func (f *FS) makeMountPoint(path string, dir bool) error {
	if dir {
		return f.MkdirAll(path, 0o755)
	}
	if err := f.MkdirAll(f.Abs(path, ".."), 0o755); err != nil {
		return err
	}
	file, err := f.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	return file.Close()
}

// setMount adds (m) or removes (nil) a mount, copying the table so that
// lookups read it without locks.
func (f *FS) setMount(key string, m *mount) {
	f.s.mountMu.Lock()
	defer f.s.mountMu.Unlock()
	table := make(map[string]*mount, len(f.mountTable())+1)
	for k, v := range f.mountTable() {
		table[k] = v
	}
	if m != nil {
		table[key] = m
	} else {
		delete(table, key)
	}
	f.s.mounts.Store(&table)
}
