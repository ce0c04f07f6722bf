package node

// The pod workers (internal/podworker) as the agent runs them: the
// podworker.Node each node gives its workers, and what of the node only
// its workers use.

import (
	"context"
	"path"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/node/internal/admission"
	"github.com/winkube/winkube/pkg/node/internal/images"
	"github.com/winkube/winkube/pkg/node/internal/kubeletenv"
	"github.com/winkube/winkube/pkg/node/internal/podnet"
	"github.com/winkube/winkube/pkg/node/internal/podworker"
	"github.com/winkube/winkube/pkg/node/internal/volume"
	"github.com/winkube/winkube/pkg/windows/activedirectory"
)

// workerNode is what the node's pod workers use of it and of the agent,
// made at the node's first pod (the agent runs by then).
func (n *emuNode) workerNode() *podworker.Node {
	n.workerOnce.Do(func() {
		a := n.agent
		n.worker = &podworker.Node{
			Name:        n.spec.name,
			IP:          n.spec.ip,
			Host:        n.spec.host,
			CPUs:        n.spec.pool.CPU,
			PauseImage:  n.spec.pauseImage(),
			Kubelet:     n.spec.kubelet,
			Client:      n.client,
			Recorder:    n.recorder,
			Objects:     a.objects(),
			Clock:       a.clock,
			RunCtx:      a.runCtx,
			Programs:    &a.programs,
			LayerDir:    a.layerDir,
			Fabric:      a.fabric,
			Router:      a.router,
			Groups:      n.groups,
			Sockets:     n.plugins.sockets,
			Domain:      a.domain(),
			SyncPeriod:  a.syncPeriod,
			Queue:       func(w *podworker.Worker) { a.pods.Add(w) },
			Network:     n.network,
			KubeletNode: n.kubeletNode,
			OSInfo:      n.osInfo,
			Machine:     n.machine,
			Disk:        n.disk,
			ClaimVolume: a.claimVolume,
			Images: images.New(images.Config{
				Recorder: n.recorder, Clock: a.clock, Runtime: n.spec.host.Runtime(),
				Resolve: a.imageSource.Resolve, Strict: a.unknownImages == UnknownImagesStrict,
				Store: n.images,
			}),
			StartCounters: n.startCounters,
			VolumeIssues:  n.volumeIssues,
			CSIPublished:  n.plugins.csiPublished,
			Unmount:       n.plugins.unmount,
			Admit:         n.admit,
			ResizeFit:     n.resizeFit,
			ReportErr:     n.reportErr,
			Succeeded:     func(op string) { n.succeeded(apiOp(op)) },
			Failed:        func(op string, err error) { n.failed(apiOp(op), err) },
		}
	})
	return n.worker
}

// kubeletNode is what the node's kubelet knows of itself, made once: it
// does not change while the agent runs, and every container start needs it.
func (n *emuNode) kubeletNode() kubeletenv.Node {
	n.kubeletOnce.Do(func() { n.kubeletInfo = n.makeKubeletNode() })
	return n.kubeletInfo
}

func (n *emuNode) makeKubeletNode() kubeletenv.Node {
	node := kubeletenv.Node{
		Name: n.spec.name, Allocatable: n.spec.allocatable(), Windows: n.spec.host.Runtime().OS == "windows",
		ClusterDomain: podnet.ClusterDomain, HostIPs: []string{n.spec.ip},
	}
	if cl := n.agent.cluster; cl != nil && cl.Network.DNSServiceIP != "" {
		node.ClusterDNS = []string{cl.Network.DNSServiceIP}
	}
	return node
}

// workerByName is the worker of a pod of this node.
func (n *emuNode) workerByName(namespace, name string) *podworker.Worker {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, w := range n.workers {
		p := w.Latest()
		if p.Namespace == namespace && p.Name == name && !w.Removed() {
			return w
		}
	}
	return nil
}

// disk is the node's own filesystem, made at first use: what hostPath
// volumes mount and HostProcess containers see as their root. It starts
// with the node's hosts file where its OS keeps it.
func (n *emuNode) disk() *vfs.Volume {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.hostRoot == nil {
		n.hostRoot = vfs.NewVolume()
		hosts := "etc/hosts"
		if n.spec.host.Runtime().OS == "windows" {
			hosts = "Windows/System32/drivers/etc/hosts"
		}
		_ = n.hostRoot.MkdirAll(path.Dir(hosts), 0o755)
		_ = n.hostRoot.WriteFile(hosts, kubeletenv.DefaultNodeHosts(n.spec.name), 0o644)
	}
	return n.hostRoot
}

// claimVolume is the data of a PersistentVolumeClaim, kept for as long as
// the agent runs, whichever pod mounts it.
func (a *Agent) claimVolume(namespace, claim string) *vfs.Volume {
	a.claimMu.Lock()
	defer a.claimMu.Unlock()
	key := namespace + "/" + claim
	if a.claims == nil {
		a.claims = map[string]*vfs.Volume{}
	}
	v, ok := a.claims[key]
	if !ok {
		v = vfs.NewVolume()
		a.claims[key] = v
	}
	return v
}

// volumeIssues checks every volume the pod's containers use on the node.
func (n *emuNode) volumeIssues(ctx context.Context, pod *corev1.Pod, due func(string) bool) []volume.Issue {
	node, _ := n.agent.nodeLister.Get(n.spec.name)
	host := volume.HostOf(node, n.spec.host.OS() == "windows")
	host.CSI, host.Due = n.plugins.mounter, due
	return (&volume.Checker{Client: n.client}).Issues(ctx, pod, host)
}

// Values of Options.UnknownImages.
const (
	// UnknownImagesUnverified pulls an image nobody can answer for as
	// made for the node, with a Warning event (the default).
	UnknownImagesUnverified = "unverified"
	// UnknownImagesStrict fails such a pull, as a node whose runtime
	// cannot reach the image's registry fails it.
	UnknownImagesStrict = "strict"
)

// resizeFit is the kubelet's admission of a resize on a node that allows
// it (podworker's resizeFit refuses every resize on Windows): the desired
// pod must fit the node's allocatable beside the other pods. Any reason
// makes the resize Deferred.
func (n *emuNode) resizeFit(w *podworker.Worker, pod *corev1.Pod) (reason, message string) {
	n.admitMu.Lock()
	defer n.admitMu.Unlock()
	node, err := n.agent.nodeLister.Get(n.spec.name)
	if err != nil {
		return corev1.PodReasonDeferred, "Kubelet cannot get node info."
	}
	if r := admission.FitResources(pod, node, n.activeBesides(w)); !r.Admit {
		return corev1.PodReasonDeferred, r.Message
	}
	return "", ""
}

// domain is the Active Directory domain the cluster's Windows nodes are
// joined to (GMSA).
func (a *Agent) domain() activedirectory.Domain {
	if a.cluster == nil {
		return v1alpha1.DefaultCluster().Domain()
	}
	return a.cluster.Domain()
}
