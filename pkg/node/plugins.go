package node

import (
	"context"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/types"

	"github.com/winkube/winkube/pkg/emu/unixsock"
	"github.com/winkube/winkube/pkg/node/internal/csimount"
	"github.com/winkube/winkube/pkg/node/internal/pluginreg"
)

// nodePlugins is the node's Unix socket namespace (what containers bind
// through hostPath volumes and HostProcess containers at C:\), the
// kubelet's plugin manager on it (internal/pluginreg): CSI drivers
// registered by node-driver-registrar appear in the node's CSINode; and
// the CSI volume plugin that calls them to mount volumes
// (internal/csimount).
type nodePlugins struct {
	sockets *unixsock.Namespace
	once    sync.Once
	stop    func()
	manager atomic.Pointer[pluginreg.Manager]
	mounter *csimount.Mounter
}

// watchPlugins makes the node's socket namespace and starts the plugin
// manager at the first socket bound in the plugin registry. A real
// kubelet starts it, and creates the node's CSINode, when it starts;
// winkube waits for a plugin, so that a cluster of thousands of nodes
// without CSI drivers makes no CSINode writes (docs/containers.md says
// so).
func (n *emuNode) watchPlugins() {
	win := n.spec.host.Runtime().OS == "windows"
	p := &n.plugins
	p.sockets = unixsock.NewNamespace(win)
	p.mounter = csimount.New(csimount.Config{
		Client: n.client, Windows: win, Endpoint: p.endpoint, Dial: p.sockets.Dial, Disk: n.disk,
	})
	p.stop = p.sockets.Watch(pluginreg.RegistryDir(win), func(e unixsock.Event) {
		if !e.Bound {
			return
		}
		p.once.Do(func() {
			go p.stop() // the manager watches the registry from now on
			p.manager.Store(pluginreg.Start(n.agent.runCtx, pluginreg.Config{Client: n.client, NodeName: n.spec.name, Sockets: p.sockets}))
		})
	})
}

// endpoint is a CSI driver's endpoint if it is registered with the node.
func (p *nodePlugins) endpoint(driver string) (string, bool) {
	m := p.manager.Load()
	if m == nil {
		return "", false
	}
	return m.Endpoint(driver)
}

// csiPublished is where a CSI driver published a pod's volume.
func (p *nodePlugins) csiPublished(pod types.UID, volume string) (string, bool) {
	return p.mounter.Published(pod, volume)
}

// unmount starts unpublishing a deleted pod's CSI volumes and
// reports whether they are gone.
func (p *nodePlugins) unmount(ctx context.Context, pod types.UID) bool {
	return p.mounter.Unmount(ctx, pod)
}
