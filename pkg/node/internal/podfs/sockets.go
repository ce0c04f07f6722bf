package podfs

import (
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/emu/unixsock"
	"github.com/winkube/winkube/pkg/node/internal/kubeletenv"
	"github.com/winkube/winkube/pkg/node/internal/rootfs"
)

// SocketView is what Unix sockets a container reaches: the node's through
// its hostPath volumes (a HostProcess container: all of C:\), the pod's
// through its emptyDirs (sidecars sharing a socket directory), and its
// own for every other path, made per container run as its filesystem is.
func (p *Pod) SocketView(pod *corev1.Pod, mounts []kubeletenv.Mount, win, hpc bool) *unixsock.View {
	v := &unixsock.View{Windows: win, Own: unixsock.NewNamespace(win)}
	if hpc && p.cfg.Sockets != nil {
		v.Mounts = append(v.Mounts, unixsock.Mount{Path: `C:\`, NS: p.cfg.Sockets, Dir: `C:\`})
	}
	for _, m := range mounts {
		vol, ok := rootfs.FindVolume(pod, m.Volume)
		if !ok {
			continue
		}
		switch {
		case vol.HostPath != nil && p.cfg.Sockets != nil:
			v.Mounts = append(v.Mounts, unixsock.Mount{Path: m.Path, NS: p.cfg.Sockets, Dir: joinSub(vol.HostPath.Path, m.SubPath, win)})
		case vol.EmptyDir != nil:
			v.Mounts = append(v.Mounts, unixsock.Mount{Path: m.Path, NS: p.podSockets(m.Volume, win), Dir: joinSub("/", m.SubPath, win)})
		}
	}
	return v
}

// joinSub is a volume's directory with the mount's subPath under it.
func joinSub(dir, sub string, win bool) string {
	if sub == "" {
		return dir
	}
	if win {
		return strings.TrimRight(dir, `\/`) + `\` + strings.ReplaceAll(sub, "/", `\`)
	}
	return path.Join(dir, sub)
}

// podSockets is the socket namespace of one of the pod's emptyDir
// volumes, shared by the containers that mount it.
func (p *Pod) podSockets(volume string, win bool) *unixsock.Namespace {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sockets == nil {
		p.sockets = map[string]*unixsock.Namespace{}
	}
	ns, ok := p.sockets[volume]
	if !ok {
		ns = unixsock.NewNamespace(win)
		p.sockets[volume] = ns
	}
	return ns
}
