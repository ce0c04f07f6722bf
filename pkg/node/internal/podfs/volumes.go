package podfs

import (
	"context"
	"path"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/node/internal/atomicwrite"
	"github.com/winkube/winkube/pkg/node/internal/kubeletenv"
	"github.com/winkube/winkube/pkg/node/internal/rootfs"
)

// podVolume is the content of one of the pod's volumes, made once per pod
// and shared by its containers (an emptyDir outlives container restarts):
// configMap, secret, downwardAPI and projected volumes filled as the
// kubelet's atomic writer lays them out; a hostPath shared by the pods of
// the node; a claim's volume shared by every pod that mounts it; an
// image volume's files; what a CSI driver published at the volume's
// target path on the node.
func (p *Pod) podVolume(ctx context.Context, pod *corev1.Pod, name string) (*vfs.Volume, string) {
	vol, ok := rootfs.FindVolume(pod, name)
	if !ok {
		return nil, ""
	}
	if vol.HostPath != nil {
		return p.hostPath(vol.HostPath)
	}
	if p.cfg.CSIPublished != nil {
		if target, ok := p.cfg.CSIPublished(name); ok {
			return p.cfg.Disk(), rootfs.HostRel(target)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if v, ok := p.vols[name]; ok {
		return v, ""
	}
	var v *vfs.Volume
	switch kind := kubeletenv.VolumeKind(vol); {
	case kind == kubeletenv.KindPVC:
		v = p.cfg.ClaimVolume(pod.Namespace, vol.PersistentVolumeClaim.ClaimName)
	case kubeletenv.FromAPIObjects(kind):
		v = vfs.NewVolumeWith(vfs.VolumeOptions{Memory: p.ramBacked(kind)})
		files, err := kubeletenv.VolumeFiles(ctx, p.Objects(), pod, vol, p.cfg.KubeletNode(), p.cfg.Clock.Now())
		if err == nil {
			atomicwrite.Write(v, files)
			p.setVolFiles(name, files)
		}
		// An object that went missing after the mount step leaves the
		// volume empty, as a kubelet keeps the last content it wrote.
	case kind == kubeletenv.KindImage:
		v = p.imageVolume(vol.Image.Reference)
	default:
		v = vfs.NewVolumeWith(vfs.VolumeOptions{Memory: p.ramBacked(kind)})
	}
	if p.vols == nil {
		p.vols = map[string]*vfs.Volume{}
	}
	p.vols[name] = v
	return v, ""
}

// csiPublished reports whether a CSI driver published the volume: it is
// a directory of the node's disk, mounted at once (a lazy mount takes a
// whole volume).
func (p *Pod) csiPublished(name string) bool {
	if p.cfg.CSIPublished == nil {
		return false
	}
	_, ok := p.cfg.CSIPublished(name)
	return ok
}

// ramBacked: the Linux kubelet mounts a tmpfs for an emptyDir of medium
// Memory and for secret, downwardAPI and projected volumes (configMaps
// stay on disk); the Windows kubelet has no tmpfs and makes a plain
// directory on disk for every one of them (LIM-4).
func (p *Pod) ramBacked(kind string) bool {
	if p.cfg.Windows {
		return false
	}
	switch kind {
	case kubeletenv.KindEmptyDirMemory, kubeletenv.KindSecret, kubeletenv.KindDownwardAPI, kubeletenv.KindProjected:
		return true
	}
	return false
}

// DropAPIVolumes lets go of the pod's volumes made from API objects
// (configMap, secret, downwardAPI, projected): the next container
// filesystem that mounts one makes it again, with the objects' current
// content, as the kubelet's sync would have updated it. What a container
// may have written (emptyDir, claims) stays.
func (p *Pod) DropAPIVolumes() {
	pod := p.cfg.Pod()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, vol := range pod.Spec.Volumes {
		if kubeletenv.FromAPIObjects(kubeletenv.VolumeKind(vol)) {
			delete(p.vols, vol.Name)
			delete(p.volFiles, vol.Name)
		}
	}
}

// imageVolume is the root filesystem of the image an image volume
// references, as far as the catalog knows it: the files the image ships
// and its OS release file (the kubelet mounts it read-only; the mount
// says so). An image outside the catalog mounts empty, and so does any
// image on a Windows node, which does not support image volumes.
func (p *Pod) imageVolume(ref string) *vfs.Volume {
	v := vfs.NewVolume()
	if p.cfg.Windows {
		return v
	}
	if cmd, ok := imageinfo.DefaultCommand(ref); ok {
		writeImage(v.FS(), "/", Plan{ImageFiles: cmd.Files, ImageText: cmd.Text})
	}
	return v
}

// hostPath is the node's own filesystem and the path in it a hostPath
// volume mounts, made as its type asks (a file for FileOrCreate, else a
// directory).
func (p *Pod) hostPath(src *corev1.HostPathVolumeSource) (*vfs.Volume, string) {
	root := p.cfg.Disk()
	rel := rootfs.HostRel(src.Path)
	if _, err := root.FS().Stat(root.FS().Abs("/", rel)); err != nil {
		if src.Type != nil && *src.Type == corev1.HostPathFileOrCreate {
			_ = root.MkdirAll(path.Dir(rel), 0o755)
			_ = root.WriteFile(rel, nil, 0o644)
		} else {
			_ = root.MkdirAll(rel, 0o755)
		}
	}
	return root, rel
}
