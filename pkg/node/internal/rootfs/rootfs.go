// Package rootfs is what a container's root filesystem is laid out from,
// apart from the worker that builds it: the skeletons of Linux and
// Windows images, the files the catalog says an image ships, the pod's
// sysctls, where a volume's mount shows (HostProcess containers see it
// twice) and which mounts can wait for a first look. Everything here is
// given what it needs; nothing reads the pod worker.
package rootfs

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/certs"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/node/internal/kubeletenv"
)

// LazyMount reports whether a mount can wait for the container's first
// look under it: a whole volume other than a hostPath (which may be a
// file) is always a directory, so nothing is needed to make its mount
// point. The volume itself may cost an API request (a service account
// token, a ConfigMap), which a container that never reads it never makes.
func LazyMount(pod *corev1.Pod, m kubeletenv.Mount) bool {
	vol, ok := FindVolume(pod, m.Volume)
	return ok && m.SubPath == "" && vol.HostPath == nil
}

// MountPoints are where a volume shows: its mount path, and for a
// HostProcess container also under its image's mount
// ($CONTAINER_SANDBOX_MOUNT_POINT\etc\config for /etc/config), as
// containerd 1.7 mounts it there and binds it at the path itself.
func MountPoints(f *vfs.FS, mountPath string, hostProcess bool) []string {
	if !hostProcess {
		return []string{mountPath}
	}
	return []string{mountPath, f.Abs(HostProcessMount, HostRel(mountPath))}
}

// HostProcessMount is where a HostProcess container sees its image, as
// containerd 1.7 mounts it ($CONTAINER_SANDBOX_MOUNT_POINT).
const HostProcessMount = `C:\hpc`

// ImagePath is an image file's path in a tree rooted at dir ("" is the
// container's root, where names are used as they are).
func ImagePath(root *vfs.FS, dir, name string) string {
	if dir == "" {
		return name
	}
	return root.Abs(dir, HostRel(name))
}

// ReadOnlyRoot is securityContext.readOnlyRootFilesystem.
func ReadOnlyRoot(_ *corev1.Pod, c *corev1.Container) bool {
	return c.SecurityContext != nil && c.SecurityContext.ReadOnlyRootFilesystem != nil && *c.SecurityContext.ReadOnlyRootFilesystem
}

// linuxMounts is /proc/mounts of a containerd container on a cgroup v2
// host: what mount lists (the e2e framework tells cgroup v1 from v2 by
// `mount -t cgroup2`).
const linuxMounts = `overlay / overlay rw,relatime,lowerdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/1/fs 0 0
proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
tmpfs /dev tmpfs rw,nosuid,size=65536k,mode=755 0 0
devpts /dev/pts devpts rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=666 0 0
mqueue /dev/mqueue mqueue rw,nosuid,nodev,noexec,relatime 0 0
sysfs /sys sysfs ro,nosuid,nodev,noexec,relatime 0 0
cgroup /sys/fs/cgroup cgroup2 ro,nosuid,nodev,noexec,relatime 0 0
shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0
`

// LinuxLayout is the skeleton of a busybox-like image.
func LinuxLayout(root *vfs.FS) {
	for _, d := range []string{"/bin", "/etc", "/home", "/proc", "/root", "/sys/fs/cgroup", "/usr/bin", "/var", "/dev"} {
		_ = root.MkdirAll(d, 0o755)
	}
	_ = root.Mkdir("/tmp", 0o777)
	_ = root.Chmod("/tmp", fs.ModeSticky|0o777)
	for _, d := range []string{"null", "zero", "urandom", "random"} {
		kind := d
		if d == "random" {
			kind = "urandom"
		}
		_ = root.Device("/dev/"+d, kind)
	}
	WriteFile(root, "/proc/mounts", []byte(linuxMounts), 0o444)
	WriteFile(root, "/etc/passwd", kubeletenv.BusyboxPasswd, 0o644)
	WriteFile(root, "/etc/group", kubeletenv.BusyboxGroup, 0o644)
}

// WindowsLayout is the skeleton of a Windows Server Core or Nano Server
// image, with C:\tmp where a busybox layer adds it.
func WindowsLayout(root *vfs.FS, account string, busybox bool) {
	for _, d := range []string{`C:\Windows\System32\drivers\etc`, `C:\Program Files`, `C:\ProgramData`, `C:\Users\Public`, `C:\Users\` + account} {
		_ = root.MkdirAll(d, 0o755)
	}
	if busybox {
		_ = root.MkdirAll(`C:\tmp`, 0o777)
	}
	WriteFile(root, `C:\Windows\System32\drivers\etc\hosts`, []byte("# Copyright (c) 1993-2009 Microsoft Corp.\r\n"), 0o644)
}

// SysctlFiles are the kernel parameters the pod sets (securityContext
// .sysctls), under /proc/sys where the container reads them; the kernel
// refuses writes to them from an unprivileged container.
func SysctlFiles(root *vfs.FS, pod *corev1.Pod) {
	sc := pod.Spec.SecurityContext
	if sc == nil {
		return
	}
	for _, s := range sc.Sysctls {
		name := "/proc/sys/" + strings.ReplaceAll(s.Name, ".", "/")
		WriteFile(root, name, []byte(s.Value+"\n"), 0o644)
	}
}

// ImageFileContent stands in for a file the catalog names without its
// content: a binary's is not modelled, only that it is there; a
// certificate or key (agnhost's /localhost.crt) is a real PEM pair.
func ImageFileContent(name string) []byte {
	switch {
	case strings.HasSuffix(name, ".crt"):
		return localhostPair().cert
	case strings.HasSuffix(name, ".key"):
		return localhostPair().key
	}
	return []byte("\x7fELF")
}

type pemPair struct{ cert, key []byte }

// localhostPair is one self-signed certificate for "localhost", made once.
var localhostPair = sync.OnceValue(func() pemPair {
	p, err := certs.SelfSigned(certs.Spec{CommonName: "localhost", DNSNames: []string{"localhost"}, Server: true, Validity: 10 * 365 * 24 * time.Hour})
	if err != nil {
		return pemPair{}
	}
	return pemPair{cert: p.CertPEM, key: p.KeyPEM}
})

// WriteFile writes name under root, making its directory; a failure
// leaves the file absent.
func WriteFile(root *vfs.FS, name string, data []byte, perm fs.FileMode) {
	dir := name[:strings.LastIndexAny(name, `/\`)]
	if dir != "" {
		_ = root.MkdirAll(dir, 0o755)
	}
	fh, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return
	}
	_, _ = fh.Write(data)
	_ = fh.Close()
}

// FindVolume is the pod's volume called name.
func FindVolume(pod *corev1.Pod, name string) (corev1.Volume, bool) {
	for _, v := range pod.Spec.Volumes {
		if v.Name == name {
			return v, true
		}
	}
	return corev1.Volume{}, false
}

// HostRel is a host path relative to the node's root: C:\ and either
// separator on Windows nodes, / on Linux ones.
func HostRel(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if len(p) >= 2 && p[1] == ':' {
		p = p[2:]
	}
	return strings.TrimPrefix(path.Clean("/"+p), "/")
}
