package node

import (
	"sync"

	"github.com/winkube/winkube/pkg/emu/unixsock"
	"github.com/winkube/winkube/pkg/node/internal/pluginreg"
)

// nodePlugins is the node's Unix socket namespace (what containers bind
// through hostPath volumes and HostProcess containers at C:\) and the
// kubelet's plugin manager on it (internal/pluginreg): CSI drivers
// registered by node-driver-registrar appear in the node's CSINode.
type nodePlugins struct {
	sockets *unixsock.Namespace
	once    sync.Once
	stop    func()
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
	p.stop = p.sockets.Watch(pluginreg.RegistryDir(win), func(e unixsock.Event) {
		if !e.Bound {
			return
		}
		p.once.Do(func() {
			go p.stop() // the manager watches the registry from now on
			pluginreg.Start(n.agent.runCtx, pluginreg.Config{Client: n.agent.client, NodeName: n.spec.name, Sockets: p.sockets})
		})
	})
}
