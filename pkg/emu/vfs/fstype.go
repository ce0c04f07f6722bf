package vfs

// Tmpfs is the type statfs names for a RAM-backed file system (the
// kernel's "tmpfs"), the type of a Memory volume's files.
const Tmpfs = "tmpfs"

// MountType is the type of the file system name is on, as statfs(2)
// reports it: Tmpfs for the files of a Memory volume, "" for a disk
// whose type the emulation does not model (the caller names its
// default). A symlink at the end of name is followed, as statfs does;
// a name that does not resolve has no type.
func (f *FS) MountType(name string) string {
	l, err := f.existing("statfs", name, true)
	if err != nil {
		return ""
	}
	return l.node.tree.fsType
}
