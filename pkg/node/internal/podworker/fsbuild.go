package podworker

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
		Windows: p.win, ReadOnlyRoot: rootfs.ReadOnlyRoot(p.pod, &p.c.spec),
		UID: p.id.UID, GID: p.id.GID, Groups: p.id.Groups, Clock: w.clock,
	}
	var f *vfs.FS
	if p.hostProcess {
		f = w.hostProcessFS(p, opts)
	} else {
		f = vfs.New(opts)
		root := f.Privileged()
		if p.win {
			rootfs.WindowsLayout(root, p.id.Account, p.busybox)
		} else {
			rootfs.LinuxLayout(root)
			cgroupFiles(root, p.pod, p.c, w.node.KubeletNode())
			rootfs.SysctlFiles(root, p.pod)
		}
		writeImage(root, "", p)
	}
	w.managedFiles(f, p)
	for _, m := range p.mounts {
		if rootfs.LazyMount(p.pod, m) {
			open := func() *vfs.Volume {
				v, _ := w.podVolume(ctx, w.latest(), m.Volume)
				return v
			}
			for _, at := range rootfs.MountPoints(f, m.Path, p.hostProcess) {
				_ = f.MountLazy(at, open, m.ReadOnly)
			}
		} else if v, base := w.podVolume(ctx, p.pod, m.Volume); v != nil {
			for _, at := range rootfs.MountPoints(f, m.Path, p.hostProcess) {
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
func (w *Worker) hostProcessFS(p fsPlan, opts vfs.Options) *vfs.FS {
	opts.ReadOnlyRoot = false
	f := vfs.On(w.node.Disk(), opts)
	img := vfs.NewVolume()
	writeImage(img.FS(), "/", p)
	_ = f.Mount(rootfs.HostProcessMount, img, "", false)
	return f
}

// writeImage lays the files the catalog says the image ships under dir.
func writeImage(root *vfs.FS, dir string, p fsPlan) {
	for _, name := range p.imageFiles {
		rootfs.WriteFile(root, rootfs.ImagePath(root, dir, name), rootfs.ImageFileContent(name), 0o755)
	}
	for name, text := range p.imageText {
		if p.win && strings.HasPrefix(name, "/etc/") {
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

// cgroupFiles are the container's cgroup v2 limits under /sys/fs/cgroup.
func cgroupFiles(root *vfs.FS, pod *corev1.Pod, c *ctr, node kubeletenv.Node) {
	for name, data := range kubeletenv.CgroupFiles(pod, &c.spec, node) {
		rootfs.WriteFile(root, name, data, 0o644)
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
