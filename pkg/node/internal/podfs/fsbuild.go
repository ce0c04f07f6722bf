package podfs

import (
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/node/internal/kubeletenv"
	"github.com/winkube/winkube/pkg/node/internal/rootfs"
)

// pathRules are filesystems used only for their path syntax (Abs).
var pathRules = map[bool]*vfs.FS{false: vfs.New(vfs.Options{}), true: vfs.New(vfs.Options{Windows: true})}

// Plan is what a container's filesystem is made of.
type Plan struct {
	pod *corev1.Pod
	// Container is the container's spec (the pod worker's, which an
	// in-place resize updates); RunningID its container ID when it was
	// adopted Running (a kept layer's name); Ref the reference of its
	// events.
	Container *corev1.Container
	RunningID string
	Ref       func(pod *corev1.Pod) *corev1.ObjectReference
	Mounts    []kubeletenv.Mount
	Identity  kubeletenv.Identity
	Windows   bool
	// HostProcess: the container is a Windows HostProcess container.
	HostProcess bool
	// Busybox: a Windows image with a busybox layer, which has C:\tmp.
	Busybox bool
	// ImageFiles are files the catalog says the image ships; ImageText
	// its text files with their content.
	ImageFiles []string
	ImageText  map[string]string
}

// LazyFS is the container's filesystem, made at first use.
func (pf *Pod) LazyFS(p Plan) program.FS {
	layer := ""
	if !p.HostProcess { // its root is the node's disk
		layer = pf.savedLayer(p.RunningID)
	}
	lf := vfs.NewLazy(func() program.FS {
		// The plan holds no pod, before the build or after it (the
		// build fills a copy): a pod version would stay in memory for
		// as long as the container runs, while the latest has the same
		// spec.
		b := p
		b.pod = pf.cfg.Pod()
		f := pf.buildFS(b)
		if layer != "" {
			pf.loadLayer(f, p, layer)
		}
		return f
	}, pathRules[p.Windows].Abs)
	if layer != "" {
		lf.Keep()
	}
	return lf
}

// buildFS lays out the image's directories, the files the kubelet and the
// runtime add (hosts, resolv.conf, the termination log) and the pod's
// volumes at their mount paths.
func (pf *Pod) buildFS(p Plan) program.FS {
	ctx := pf.cfg.Ctx
	opts := vfs.Options{
		Windows: p.Windows, ReadOnlyRoot: rootfs.ReadOnlyRoot(p.pod, p.Container),
		UID: p.Identity.UID, GID: p.Identity.GID, Groups: p.Identity.Groups, Clock: pf.cfg.Clock,
	}
	var f *vfs.FS
	if p.HostProcess {
		f = pf.hostProcessFS(p, opts)
	} else {
		f = vfs.New(opts)
		root := f.Privileged()
		if p.Windows {
			rootfs.WindowsLayout(root, p.Identity.Account, p.Busybox)
		} else {
			rootfs.LinuxLayout(root)
			cgroupFiles(root, p.pod, p.Container, pf.cfg.KubeletNode())
			rootfs.SysctlFiles(root, p.pod)
		}
		writeImage(root, "", p)
	}
	pf.managedFiles(f, p)
	for _, m := range p.Mounts {
		if rootfs.LazyMount(p.pod, m) && !pf.csiPublished(m.Volume) {
			open := func() *vfs.Volume {
				v, _ := pf.podVolume(ctx, pf.cfg.Pod(), m.Volume)
				return v
			}
			for _, at := range rootfs.MountPoints(f, m.Path, p.HostProcess) {
				_ = f.MountLazy(at, open, m.ReadOnly)
			}
		} else if v, base := pf.podVolume(ctx, p.pod, m.Volume); v != nil {
			for _, at := range rootfs.MountPoints(f, m.Path, p.HostProcess) {
				_ = f.Mount(at, v, path.Join(base, m.SubPath), m.ReadOnly)
			}
		}
	}
	return f
}

// hostProcessFS is a HostProcess container's filesystem: the node's disk
// as its root, shared with every other HostProcess container of the node,
// and its image at C:\hpc; buildFS adds the volumes (seen by this
// container alone, as bind links in its silo are).
func (pf *Pod) hostProcessFS(p Plan, opts vfs.Options) *vfs.FS {
	opts.ReadOnlyRoot = false
	f := vfs.On(pf.cfg.Disk(), opts)
	img := vfs.NewVolume()
	writeImage(img.FS(), "/", p)
	_ = f.Mount(rootfs.HostProcessMount, img, "", false)
	return f
}

// writeImage lays the files the catalog says the image ships under dir.
func writeImage(root *vfs.FS, dir string, p Plan) {
	for _, name := range p.ImageFiles {
		rootfs.WriteFile(root, rootfs.ImagePath(root, dir, name), rootfs.ImageFileContent(name), 0o755)
	}
	for name, text := range p.ImageText {
		if p.Windows && strings.HasPrefix(name, "/etc/") {
			// The Windows variants of images built on Alpine (agnhost)
			// have no /etc: its os-release is the Linux variants'.
			continue
		}
		rootfs.WriteFile(root, rootfs.ImagePath(root, dir, name), []byte(text), 0o644)
	}
}

// managedFiles mounts the files the kubelet and the runtime add
// (hosts, hostname, resolv.conf, the termination log): each a one-file
// volume, so a read-only root leaves them writable as their bind mounts
// are.
func (pf *Pod) managedFiles(f *vfs.FS, p Plan) {
	files, err := kubeletenv.ManagedFiles(pf.cfg.Ctx, p.pod, p.Container, pf.cfg.KubeletNode(), pf.cfg.PodIPs())
	if err != nil {
		return
	}
	for _, m := range files {
		v := vfs.NewVolume()
		_ = v.WriteFile("file", m.Data, m.Mode)
		_ = f.Mount(m.Path, v, "file", m.ReadOnly)
	}
}

// cgroupFiles are the container's cgroup v2 limits under /sys/fs/cgroup.
func cgroupFiles(root *vfs.FS, pod *corev1.Pod, c *corev1.Container, node kubeletenv.Node) {
	for name, data := range kubeletenv.CgroupFiles(pod, c, node) {
		rootfs.WriteFile(root, name, data, 0o644)
	}
}

// RefreshCgroups rewrites a running container's cgroup files (fs is its
// filesystem) once the runtime has applied an in-place resize, as the
// container then reads the new limits. A filesystem not made yet gets
// them when it is.
func RefreshCgroups(fs program.FS, pod *corev1.Pod, c *corev1.Container, node func() kubeletenv.Node) {
	lf, ok := fs.(*vfs.Lazy)
	if !ok {
		return
	}
	vf, ok := lf.Current().(*vfs.FS)
	if !ok || vf.Windows() {
		return
	}
	cgroupFiles(vf.Privileged(), pod, c, node())
}
