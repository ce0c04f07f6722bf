package podworker

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/certs"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/node/internal/kubeletenv"
)

// pathRules are filesystems used only for their path syntax (Abs).
var pathRules = map[bool]*vfs.FS{false: vfs.New(vfs.Options{}), true: vfs.New(vfs.Options{Windows: true})}

// fsPlan is what a container's filesystem is made of.
type fsPlan struct {
	pod    *corev1.Pod
	c      *ctr
	mounts []kubeletenv.Mount
	id     kubeletenv.Identity
	win    bool
	// hostProcess: the container is a Windows HostProcess container.
	hostProcess bool
	// busybox: a Windows image with a busybox layer, which has C:\tmp.
	busybox bool
	// imageFiles are files the catalog says the image ships; imageText
	// its text files with their content.
	imageFiles []string
	imageText  map[string]string
}

// lazyFS is the container's filesystem, made at first use.
func (w *Worker) lazyFS(p fsPlan) program.FS {
	layer := ""
	if !p.hostProcess { // its root is the node's disk
		layer = w.savedLayer(p.c)
	}
	lf := vfs.NewLazy(func() program.FS {
		// The plan holds no pod, before the build or after it (the
		// build fills a copy): a pod version would stay in memory for
		// as long as the container runs, while the latest has the same
		// spec.
		b := p
		b.pod = w.latest()
		f := w.buildFS(b)
		if layer != "" {
			w.loadLayer(f, p.c, layer)
		}
		return f
	}, pathRules[p.win].Abs)
	if layer != "" {
		lf.Keep()
	}
	return lf
}

// buildFS lays out the image's directories, the files the kubelet and the
// runtime add (hosts, resolv.conf, the termination log) and the pod's
// volumes at their mount paths.
func (w *Worker) buildFS(p fsPlan) program.FS {
	ctx := w.node.RunCtx
	opts := vfs.Options{
		Windows: p.win, ReadOnlyRoot: readOnlyRoot(p.pod, &p.c.spec),
		UID: p.id.UID, GID: p.id.GID, Groups: p.id.Groups, Clock: w.clock,
	}
	var f *vfs.FS
	if p.hostProcess {
		f = w.hostProcessFS(p, opts)
	} else {
		f = vfs.New(opts)
		root := f.Privileged()
		if p.win {
			windowsLayout(root, p.id.Account, p.busybox)
		} else {
			linuxLayout(root)
			cgroupFiles(root, p.pod, p.c, w.node.KubeletNode())
			sysctlFiles(root, p.pod)
		}
		writeImage(root, "", p)
	}
	w.managedFiles(f, p)
	for _, m := range p.mounts {
		if lazyMount(p.pod, m) {
			open := func() *vfs.Volume {
				v, _ := w.podVolume(ctx, w.latest(), m.Volume)
				return v
			}
			for _, at := range mountPoints(f, m.Path, p.hostProcess) {
				_ = f.MountLazy(at, open, m.ReadOnly)
			}
		} else if v, base := w.podVolume(ctx, p.pod, m.Volume); v != nil {
			for _, at := range mountPoints(f, m.Path, p.hostProcess) {
				_ = f.Mount(at, v, path.Join(base, m.SubPath), m.ReadOnly)
			}
		}
	}
	return f
}

// lazyMount reports whether a mount can wait for the container's first
// look under it: a whole volume other than a hostPath (which may be a
// file) is always a directory, so nothing is needed to make its mount
// point. The volume itself may cost an API request (a service account
// token, a ConfigMap), which a container that never reads it never makes.
func lazyMount(pod *corev1.Pod, m kubeletenv.Mount) bool {
	vol, ok := findVolume(pod, m.Volume)
	return ok && m.SubPath == "" && vol.HostPath == nil
}

// mountPoints are where a volume shows: its mount path, and for a
// HostProcess container also under its image's mount
// ($CONTAINER_SANDBOX_MOUNT_POINT\etc\config for /etc/config), as
// containerd 1.7 mounts it there and binds it at the path itself.
func mountPoints(f *vfs.FS, mountPath string, hostProcess bool) []string {
	if !hostProcess {
		return []string{mountPath}
	}
	return []string{mountPath, f.Abs(hostProcessMount, hostRel(mountPath))}
}

// hostProcessMount is where a HostProcess container sees its image, as
// containerd 1.7 mounts it ($CONTAINER_SANDBOX_MOUNT_POINT).
const hostProcessMount = `C:\hpc`

// hostProcessFS is a HostProcess container's filesystem: the node's disk
// as its root, shared with every other HostProcess container of the node,
// and its image at C:\hpc; buildFS adds the volumes (seen by this
// container alone, as bind links in its silo are).
func (w *Worker) hostProcessFS(p fsPlan, opts vfs.Options) *vfs.FS {
	opts.ReadOnlyRoot = false
	f := vfs.On(w.node.Disk(), opts)
	img := vfs.NewVolume()
	writeImage(img.FS(), "/", p)
	_ = f.Mount(hostProcessMount, img, "", false)
	return f
}

// writeImage lays the files the catalog says the image ships under dir.
func writeImage(root *vfs.FS, dir string, p fsPlan) {
	for _, name := range p.imageFiles {
		writeFile(root, imagePath(root, dir, name), imageFileContent(name), 0o755)
	}
	for name, text := range p.imageText {
		if p.win && strings.HasPrefix(name, "/etc/") {
			// The Windows variants of images built on Alpine (agnhost)
			// have no /etc: its os-release is the Linux variants'.
			continue
		}
		writeFile(root, imagePath(root, dir, name), []byte(text), 0o644)
	}
}

// imagePath is an image file's path in a tree rooted at dir ("" is the
// container's root, where names are used as they are).
func imagePath(root *vfs.FS, dir, name string) string {
	if dir == "" {
		return name
	}
	return root.Abs(dir, hostRel(name))
}

// readOnlyRoot is securityContext.readOnlyRootFilesystem.
func readOnlyRoot(_ *corev1.Pod, c *corev1.Container) bool {
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

// linuxLayout is the skeleton of a busybox-like image.
func linuxLayout(root *vfs.FS) {
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
	writeFile(root, "/proc/mounts", []byte(linuxMounts), 0o444)
	writeFile(root, "/etc/passwd", kubeletenv.BusyboxPasswd, 0o644)
	writeFile(root, "/etc/group", kubeletenv.BusyboxGroup, 0o644)
}

// windowsLayout is the skeleton of a Windows Server Core or Nano Server
// image, with C:\tmp where a busybox layer adds it.
func windowsLayout(root *vfs.FS, account string, busybox bool) {
	for _, d := range []string{`C:\Windows\System32\drivers\etc`, `C:\Program Files`, `C:\ProgramData`, `C:\Users\Public`, `C:\Users\` + account} {
		_ = root.MkdirAll(d, 0o755)
	}
	if busybox {
		_ = root.MkdirAll(`C:\tmp`, 0o777)
	}
	writeFile(root, `C:\Windows\System32\drivers\etc\hosts`, []byte("# Copyright (c) 1993-2009 Microsoft Corp.\r\n"), 0o644)
}

// managedFiles mounts the files the kubelet and the runtime add
// (hosts, hostname, resolv.conf, the termination log): each a one-file
// volume, so a read-only root leaves them writable as their bind mounts
// are.
func (w *Worker) managedFiles(f *vfs.FS, p fsPlan) {
	files, err := kubeletenv.ManagedFiles(w.node.RunCtx, p.pod, &p.c.spec, w.node.KubeletNode(), w.podIPs())
	if err != nil {
		return
	}
	for _, m := range files {
		v := vfs.NewVolume()
		_ = v.WriteFile("file", m.Data, m.Mode)
		_ = f.Mount(m.Path, v, "file", m.ReadOnly)
	}
}

// sysctlFiles are the kernel parameters the pod sets (securityContext
// .sysctls), under /proc/sys where the container reads them; the kernel
// refuses writes to them from an unprivileged container.
func sysctlFiles(root *vfs.FS, pod *corev1.Pod) {
	sc := pod.Spec.SecurityContext
	if sc == nil {
		return
	}
	for _, s := range sc.Sysctls {
		name := "/proc/sys/" + strings.ReplaceAll(s.Name, ".", "/")
		writeFile(root, name, []byte(s.Value+"\n"), 0o644)
	}
}

// cgroupFiles are the container's cgroup v2 limits under /sys/fs/cgroup.
func cgroupFiles(root *vfs.FS, pod *corev1.Pod, c *ctr, node kubeletenv.Node) {
	for name, data := range kubeletenv.CgroupFiles(pod, &c.spec, node) {
		writeFile(root, name, data, 0o644)
	}
}

// refreshCgroups rewrites a running container's cgroup files once the
// runtime has applied an in-place resize, as the container then reads the
// new limits. A filesystem not made yet gets them when it is.
func (w *Worker) refreshCgroups(pod *corev1.Pod, c *ctr) {
	live := c.live.Load()
	if live == nil || live.sys == nil {
		return
	}
	lf, ok := live.sys.FS.(*vfs.Lazy)
	if !ok {
		return
	}
	vf, ok := lf.Current().(*vfs.FS)
	if !ok || vf.Windows() {
		return
	}
	cgroupFiles(vf.Privileged(), pod, c, w.node.KubeletNode())
}

// imageFileContent stands in for a file the catalog names without its
// content: a binary's is not modelled, only that it is there; a
// certificate or key (agnhost's /localhost.crt) is a real PEM pair.
func imageFileContent(name string) []byte {
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

func writeFile(root *vfs.FS, name string, data []byte, perm fs.FileMode) {
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
