package podworker

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
// image volume's files.
func (w *Worker) podVolume(ctx context.Context, pod *corev1.Pod, name string) (*vfs.Volume, string) {
	vol, ok := rootfs.FindVolume(pod, name)
	if !ok {
		return nil, ""
	}
	if vol.HostPath != nil {
		return w.node.hostPath(vol.HostPath)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if v, ok := w.vols[name]; ok {
		return v, ""
	}
	var v *vfs.Volume
	switch kind := kubeletenv.VolumeKind(vol); {
	case kind == kubeletenv.KindPVC:
		v = w.node.ClaimVolume(pod.Namespace, vol.PersistentVolumeClaim.ClaimName)
	case kubeletenv.FromAPIObjects(kind):
		v = vfs.NewVolumeWith(vfs.VolumeOptions{Memory: w.ramBacked(kind)})
		files, err := kubeletenv.VolumeFiles(ctx, w.objects(), pod, vol, w.node.KubeletNode(), w.clock.Now())
		if err == nil {
			atomicwrite.Write(v, files)
			w.setVolFiles(name, files)
		}
		// An object that went missing after the mount step leaves the
		// volume empty, as a kubelet keeps the last content it wrote.
	case kind == kubeletenv.KindImage:
		v = w.node.imageVolume(vol.Image.Reference)
	default:
		v = vfs.NewVolumeWith(vfs.VolumeOptions{Memory: w.ramBacked(kind)})
	}
	if w.vols == nil {
		w.vols = map[string]*vfs.Volume{}
	}
	w.vols[name] = v
	return v, ""
}

// ramBacked: the Linux kubelet mounts a tmpfs for an emptyDir of medium
// Memory and for secret, downwardAPI and projected volumes (configMaps
// stay on disk); the Windows kubelet has no tmpfs and makes a plain
// directory on disk for every one of them (LIM-4).
func (w *Worker) ramBacked(kind string) bool {
	if w.node.Host.OS() == "windows" {
		return false
	}
	switch kind {
	case kubeletenv.KindEmptyDirMemory, kubeletenv.KindSecret, kubeletenv.KindDownwardAPI, kubeletenv.KindProjected:
		return true
	}
	return false
}

// dropAPIVolumes lets go of the pod's volumes made from API objects
// (configMap, secret, downwardAPI, projected): the next container
// filesystem that mounts one makes it again, with the objects' current
// content, as the kubelet's sync would have updated it. What a container
// may have written (emptyDir, claims) stays.
func (w *Worker) dropAPIVolumes() {
	pod := w.latest()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, vol := range pod.Spec.Volumes {
		if kubeletenv.FromAPIObjects(kubeletenv.VolumeKind(vol)) {
			delete(w.vols, vol.Name)
			delete(w.volFiles, vol.Name)
		}
	}
}

// imageVolume is the root filesystem of the image an image volume
// references, as far as the catalog knows it: the files the image ships
// and its OS release file (the kubelet mounts it read-only; the mount
// says so). An image outside the catalog mounts empty, and so does any
// image on a Windows node, which does not support image volumes.
func (n *Node) imageVolume(ref string) *vfs.Volume {
	v := vfs.NewVolume()
	if n.Host.Runtime().OS == "windows" {
		return v
	}
	if cmd, ok := imageinfo.DefaultCommand(ref); ok {
		writeImage(v.FS(), "/", fsPlan{imageFiles: cmd.Files, imageText: cmd.Text})
	}
	return v
}

// hostPath is the node's own filesystem and the path in it a hostPath
// volume mounts, made as its type asks (a file for FileOrCreate, else a
// directory).
func (n *Node) hostPath(src *corev1.HostPathVolumeSource) (*vfs.Volume, string) {
	root := n.Disk()
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
