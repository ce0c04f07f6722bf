// Package podlogs is the container log files the runtime writes on a
// node, where node agents (fluent-bit, Fluentd, the Datadog agent) read
// them through a hostPath volume:
//
//	/var/log/pods/<namespace>_<pod>_<uid>/<container>/<restartCount>.log
//	/var/log/containers/<pod>_<namespace>_<container>-<containerID>.log
//
// the second a symlink to the first, as the kubelet makes it (on a
// Windows node the same tree under C:\). Each line is in the CRI log
// format containerd writes:
//
//	2026-11-28T01:50:00.123456789Z stdout F hello
//
// with P for a line the process left unfinished. A file is rotated when
// it passes MaxSize, as the kubelet's containerLogMaxSize rotates it,
// keeping one rotated file: the node's disk is memory, so a container
// that prints without end must not fill it.
package podlogs

import (
	"fmt"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/node/internal/ctrlog"
)

// MaxSize is the size past which a log file is rotated. The kubelet's
// default is 10 MiB; the emulated container logs keep 1 MiB (ctrlog),
// and so do their files.
const MaxSize = 1 << 20

// PodDir is a pod's log directory relative to the node's root
// (var/log/pods/<namespace>_<name>_<uid>).
func PodDir(pod *corev1.Pod) string {
	return path.Join("var/log/pods", pod.Namespace+"_"+pod.Name+"_"+string(pod.UID))
}

// LinkName is the kubelet's symlink to a container run's log, relative
// to the node's root.
func LinkName(pod *corev1.Pod, container, containerID string) string {
	_, id, _ := strings.Cut(containerID, "://")
	if id == "" {
		id = containerID
	}
	return path.Join("var/log/containers", fmt.Sprintf("%s_%s_%s-%s.log", pod.Name, pod.Namespace, container, id))
}

// Open makes the log file of a container run on disk, and its symlink,
// and returns the sink that appends to it.
func Open(disk *vfs.Volume, pod *corev1.Pod, container string, restart int32, containerID string) ctrlog.Sink {
	dir := path.Join(PodDir(pod), container)
	rel := path.Join(dir, fmt.Sprintf("%d.log", restart))
	if err := disk.MkdirAll(dir, 0o755); err != nil {
		return nil
	}
	if err := disk.WriteFile(rel, nil, 0o640); err != nil {
		return nil
	}
	link := LinkName(pod, container, containerID)
	_ = disk.MkdirAll("var/log/containers", 0o755)
	_ = disk.Remove(link)
	// A relative target resolves the same wherever a container mounts
	// the node's /var/log.
	_ = disk.Symlink(path.Join("../pods", path.Base(PodDir(pod)), container, path.Base(rel)), link)
	return &file{disk: disk, rel: rel}
}

// RemovePod removes a pod's logs and their symlinks, as the kubelet does
// once the pod is deleted.
func RemovePod(disk *vfs.Volume, pod *corev1.Pod) {
	prefix := pod.Name + "_" + pod.Namespace + "_"
	fsys := disk.FS()
	if entries, err := fsys.ReadDir("/var/log/containers"); err == nil {
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), prefix) {
				continue
			}
			target, err := fsys.Readlink("/var/log/containers/" + e.Name())
			if err == nil && strings.Contains(target, "/"+path.Base(PodDir(pod))+"/") {
				_ = disk.Remove(path.Join("var/log/containers", e.Name()))
			}
		}
	}
	_ = disk.Remove(PodDir(pod))
}

// file is one container run's log file, kept open between lines.
type file struct {
	disk *vfs.Volume
	rel  string
	mu   sync.Mutex
	h    program.File // nil until the first line, and after a rotation
	size int64
}

var streams = [2]string{"stdout", "stderr"}

// WriteLine appends a line in the CRI format.
func (f *file) WriteLine(stream int, l ctrlog.Line) {
	tag := "F"
	if l.Partial {
		tag = "P"
	}
	text := l.At.UTC().Format(time.RFC3339Nano) + " " + streams[stream&1] + " " + tag + " " + l.Text + "\n"
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.h != nil && f.size+int64(len(text)) > MaxSize {
		f.rotate(l)
	}
	if f.h == nil {
		fsys := f.disk.FS()
		h, err := fsys.OpenFile(fsys.Abs("/", f.rel), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
		if err != nil {
			return // the pod's logs were removed
		}
		f.h, f.size = h, 0
		if st, err := h.Stat(); err == nil {
			f.size = st.Size()
		}
	}
	n, _ := f.h.Write([]byte(text))
	f.size += int64(n)
}

// rotate renames the file to <name>.<timestamp>, the kubelet's rotated
// name, dropping an older rotated file; the next line opens a new one.
func (f *file) rotate(l ctrlog.Line) {
	_ = f.h.Close()
	f.h = nil
	dir, base := path.Dir(f.rel), path.Base(f.rel)
	if entries, err := f.disk.FS().ReadDir(f.disk.FS().Abs("/", dir)); err == nil {
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), base+".") {
				_ = f.disk.Remove(path.Join(dir, e.Name()))
			}
		}
	}
	_ = f.disk.Rename(f.rel, f.rel+"."+l.At.UTC().Format("20060102-150405"))
}
