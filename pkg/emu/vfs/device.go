package vfs

import (
	"io"
	"math/rand/v2"
	"syscall"
)

// Device makes a character device at name: "null" (reads end at once,
// writes are discarded), "zero" (reads zeros) or "urandom" (reads
// random bytes; writes are discarded too). The runtime's call: it works
// under a read-only root and makes missing parents.
func (f *FS) Device(name, kind string) error {
	switch kind {
	case "null", "zero", "urandom":
	default:
		return pathErr("mknod", name, syscall.EINVAL)
	}
	p := f.Privileged()
	if err := p.MkdirAll(p.Abs(name, ".."), 0o755); err != nil {
		return err
	}
	l, err := p.resolve("mknod", name, false)
	if err != nil {
		return err
	}
	if l.node != nil {
		return pathErr("mknod", name, syscall.EEXIST)
	}
	if _, err := p.create(l, kindDevice, 0o666, kind); err != nil {
		if err == errExists {
			err = syscall.EEXIST
		}
		return pathErr("mknod", name, err)
	}
	return nil
}

// nulDevice is Windows' NUL, found in every directory.
var nulDevice = &inode{tree: &tree{}, kind: kindDevice, device: "null", perm: 0o666, ino: lastIno.Add(1)}

func readDevice(kind string, p []byte) (int, error) {
	switch kind {
	case "zero":
		clear(p)
		return len(p), nil
	case "urandom":
		for i := range p {
			p[i] = byte(rand.Uint32())
		}
		return len(p), nil
	}
	return 0, io.EOF
}
