package node

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"

	"github.com/winkube/winkube/pkg/emu/nodeos"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/node/internal/admission"
	"github.com/winkube/winkube/pkg/node/internal/images"
	"github.com/winkube/winkube/pkg/node/internal/kubeletenv"
	"github.com/winkube/winkube/pkg/node/internal/podlogs"
	"github.com/winkube/winkube/pkg/node/internal/podnet"
	"github.com/winkube/winkube/pkg/node/internal/podworker"
	"github.com/winkube/winkube/pkg/node/internal/status"
)

// Heartbeat timing, as the kubelet's defaults: the lease is renewed every
// 10 s or so and lasts 40 s (status.LeaseRenewDelay); the status is
// computed every 10 s (nodeStatusUpdateFrequency) and posted when it
// changed or 5 min after the last post (nodeStatusReportFrequency): the
// lease is what keeps the node alive for the lifecycle controller.
const (
	statusCheckInterval = 10 * time.Second
	statusReportEvery   = 5 * time.Minute
	// podCIDRWait is how long a node waits for a CIDR allocator before it
	// picks its own pod CIDR.
	podCIDRWait = 10 * time.Second
)

// emuNode is one emulated node: its registration, heartbeats, network and
// the pods bound to it.
type emuNode struct {
	agent *Agent
	spec  *nodeSpec
	// client is the kubelet's: what the node writes is the kubelet's
	// (KLT-12).
	client   kubernetes.Interface
	recorder record.EventRecorder
	ref      *corev1.ObjectReference

	mu      sync.Mutex
	workers map[types.UID]*podworker.Worker
	ipam    *podnet.IPAM
	images  *images.Store
	// worker is what the node's pod workers use of it, made once
	// (workernode.go).
	workerOnce sync.Once
	worker     *podworker.Node
	// kubeletInfo is kubeletNode's answer, made once.
	kubeletOnce sync.Once
	kubeletInfo kubeletenv.Node
	// os is what a container's programs read of the node's OS, made once
	// (osInfo).
	osOnce sync.Once
	os     program.OSInfo
	// hostRoot is the node's own filesystem, which hostPath volumes
	// mount and HostProcess containers see as their root (workernode.go).
	hostRoot *vfs.Volume
	// groups are the node's local groups, which HostProcess containers
	// add to and log on with.
	groups *program.LocalGroups
	// plugins are the node's Unix sockets and plugin manager (plugins.go).
	plugins nodePlugins
	// admitMu serialises admission so resource accounting sees every
	// admitted pod.
	admitMu sync.Mutex

	// troubles are the API calls failing right now (see trouble.go).
	troubles troubles

	// beatMu serialises the node's heartbeat jobs, which own the fields
	// below; started is when they began.
	beatMu  sync.Mutex
	started time.Time
	// known is the node its registration got back: the first status post
	// starts from it instead of a read.
	known *corev1.Node

	uid          types.UID
	lease        *coordinationv1.Lease
	readyPosted  bool
	lastPosted   time.Time
	networkReady bool
}

func newEmuNode(a *Agent, spec *nodeSpec, client kubernetes.Interface, recorder record.EventRecorder) *emuNode {
	n := &emuNode{
		agent:    a,
		spec:     spec,
		client:   client,
		recorder: recorder,
		// The kubelet refers to its node by name, with the name as UID.
		ref:     &corev1.ObjectReference{Kind: "Node", Name: spec.name, UID: types.UID(spec.name)},
		workers: map[types.UID]*podworker.Worker{},
		images:  images.NewStore(),
		groups:  program.NewLocalGroups(),
	}
	n.watchPlugins()
	return n
}

// register creates the node, or updates it when it already exists (an agent
// restart): labels are reconciled, taints left as they are, as the kubelet
// does on re-registration.
func (n *emuNode) register(ctx context.Context) error {
	nodes := n.client.CoreV1().Nodes()
	want := n.spec.initialNode(time.Now())
	created, err := nodes.Create(ctx, want, metav1.CreateOptions{})
	switch {
	case err == nil:
		n.uid, n.known = created.UID, created
	case apierrors.IsAlreadyExists(err):
		if err := n.reconcileExisting(ctx); err != nil {
			return err
		}
	default:
		return fmt.Errorf("register node %s: %w", n.spec.name, err)
	}
	if err := n.postStatus(ctx); err != nil {
		return fmt.Errorf("update status of node %s: %w", n.spec.name, err)
	}
	n.agent.progress.printf("node %s registered", n.spec.name)
	n.recorder.Eventf(n.ref, corev1.EventTypeNormal, "Starting", "Starting kubelet.")
	for _, ev := range []string{"NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID"} {
		n.statusEvent(ev)
	}
	if n.spec.host.OS() == "linux" {
		// Windows does not enforce node allocatable (KLT-3).
		n.recorder.Eventf(n.ref, corev1.EventTypeNormal, "NodeAllocatableEnforced", "Updated Node Allocatable limit across pods")
	}
	return nil
}

func (n *emuNode) statusEvent(event string) {
	n.recorder.Eventf(n.ref, corev1.EventTypeNormal, event, "Node %s status is now: %s", n.spec.name, event)
}

// reconcileExisting merges our labels into an existing node.
func (n *emuNode) reconcileExisting(ctx context.Context) error {
	nodes := n.client.CoreV1().Nodes()
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := nodes.Get(ctx, n.spec.name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("get node %s: %w", n.spec.name, err)
		}
		n.uid = cur.UID
		// A node that already has a pod CIDR stays Ready across the restart.
		n.networkReady = cur.Spec.PodCIDR != ""
		if cur.Labels == nil {
			cur.Labels = map[string]string{}
		}
		for k, v := range n.spec.labels() {
			cur.Labels[k] = v
		}
		if cur.Annotations == nil {
			cur.Annotations = map[string]string{}
		}
		cur.Annotations[status.AnnotationControllerManagedAttach] = "true"
		_, err = nodes.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
}

// Heartbeat jobs of a node, each a separate entry of the agent's
// heartbeat queue (queue.go).
type beatKind int

const (
	beatLease beatKind = iota
	beatStatus
	beatCIDR
)

// cidrPoll is how often a node without a pod CIDR looks for one: the
// node informer's update of the node queues the look as soon as the
// allocator sets it (nodeSeen); the poll is for picking its own after
// podCIDRWait.
const cidrPoll = time.Second

// beat runs one heartbeat job and returns the delay until its next run
// (zero: never again). beatMu keeps the jobs of one node in sequence, as
// the node's single loop did.
func (n *emuNode) beat(ctx context.Context, kind beatKind) time.Duration {
	n.beatMu.Lock()
	defer n.beatMu.Unlock()
	switch kind {
	case beatLease:
		n.renewLease(ctx)
		return status.LeaseRenewDelay(rand.Float64())
	case beatStatus:
		n.syncStatus(ctx)
		return statusCheckInterval
	case beatCIDR:
		if n.network() == nil {
			n.checkPodCIDR(ctx, n.agent.clock.Since(n.started) > podCIDRWait)
		}
		if n.network() != nil {
			return 0
		}
		return cidrPoll
	}
	return 0
}

func (n *emuNode) reportErr(err error) {
	if err != nil && n.agent != nil {
		n.agent.report(err)
	}
}

// checkPodCIDR sets up pod networking once the node has a pod CIDR; after
// podCIDRWait without one it picks and patches its own.
func (n *emuNode) checkPodCIDR(ctx context.Context, pickOwn bool) {
	node, err := n.agent.nodeLister.Get(n.spec.name)
	if err != nil {
		return
	}
	cidr := node.Spec.PodCIDR
	if cidr == "" && pickOwn {
		cidr, err = n.assignPodCIDR(ctx)
		if err != nil {
			n.failed(opNodePatch, err)
			return
		}
	}
	if cidr == "" {
		return
	}
	if err := n.setupNetwork(cidr); err != nil {
		n.reportErr(err)
		return
	}
	if !n.networkReady {
		n.networkReady = true
		n.recordStatus(n.postStatus(ctx))
	}
}

// assignPodCIDR picks a free subnet and patches it into the node spec.
func (n *emuNode) assignPodCIDR(ctx context.Context) (string, error) {
	all, err := n.agent.nodeLister.List(labels.Everything())
	if err != nil {
		return "", fmt.Errorf("list nodes: %w", err)
	}
	p, err := n.agent.cidrs.Pick(all)
	if err != nil {
		return "", fmt.Errorf("node %s: %w", n.spec.name, err)
	}
	patch, _ := json.Marshal(map[string]any{"spec": map[string]any{"podCIDR": p.String(), "podCIDRs": []string{p.String()}}})
	// A kubelet never sets its pod CIDR: winkube does it here in the role
	// of the absent allocator, so the write is the agent's, not the
	// kubelet's (KLT-12).
	updated, err := n.agent.client.CoreV1().Nodes().Patch(ctx, n.spec.name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return "", fmt.Errorf("set pod CIDR of node %s: %w", n.spec.name, err)
	}
	return updated.Spec.PodCIDR, nil
}

// setupNetwork creates the node's IPAM and reserves the addresses its
// existing pods hold, so a restarted agent never hands them out twice.
func (n *emuNode) setupNetwork(cidr string) error {
	m, err := podnet.NewIPAM(cidr)
	if err != nil {
		return fmt.Errorf("node %s: %w", n.spec.name, err)
	}
	podnet.ReserveHostAddresses(m, n.agent.cluster.Network.Mode, n.spec.host.OS())
	pods, _ := n.agent.podLister.List(labels.Everything())
	for _, p := range pods {
		if p.Spec.NodeName != n.spec.name || p.Status.PodIP == "" || isTerminal(p) {
			continue
		}
		if ip, err := netip.ParseAddr(p.Status.PodIP); err == nil && m.Prefix().Contains(ip) {
			_ = m.Reserve(string(p.UID), ip)
		}
	}
	n.mu.Lock()
	n.ipam = m
	n.mu.Unlock()
	return nil
}

// network returns the node's IPAM, nil until the node has a pod CIDR.
func (n *emuNode) network() *podnet.IPAM {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.ipam
}

// podChanged hands the latest version of a pod to its worker, making one
// for a pod seen for the first time, and queues the worker.
func (n *emuNode) podChanged(pod *corev1.Pod) {
	n.mu.Lock()
	if n.agent.runCtx.Err() != nil {
		n.mu.Unlock()
		return // the agent is closing
	}
	w, ok := n.workers[pod.UID]
	if !ok {
		w = podworker.New(n.workerNode(), pod)
		n.workers[pod.UID] = w
	}
	n.mu.Unlock()
	w.Update(pod)
	n.agent.pods.Add(w)
}

// podRemoved forgets the worker of a pod deleted from the API and frees
// its address; a step still queued for it does nothing.
func (n *emuNode) podRemoved(pod *corev1.Pod) {
	n.mu.Lock()
	w, ok := n.workers[pod.UID]
	delete(n.workers, pod.UID)
	m := n.ipam
	disk := n.hostRoot
	n.mu.Unlock()
	if disk != nil {
		podlogs.RemovePod(disk, pod)
	}
	if ok {
		w.MarkRemoved()
		n.agent.router.Forget(pod)
		w.StopContainers(n.agent.clock.Now)
		// A pod removed without its final sync (a forced delete) still
		// has its CSI volumes unpublished.
		n.plugins.unmount(n.agent.runCtx, pod.UID)
	}
	if m != nil {
		m.Release(string(pod.UID))
	}
}

// admit runs pod admission against the node as the API has it and the pods
// already admitted here (KLT-4).
func (n *emuNode) admit(w *podworker.Worker, pod *corev1.Pod) admission.Result {
	n.admitMu.Lock()
	defer n.admitMu.Unlock()
	node, err := n.agent.nodeLister.Get(n.spec.name)
	if err != nil {
		node = nil
	}
	r := admission.Admit(pod, node, n.spec.host.OS(), n.activeBesides(w))
	if r.Admit {
		w.MarkAdmitted()
	}
	return r
}

// activeBesides are the pods of the node's active workers other than w:
// what admission counts as already on the node.
func (n *emuNode) activeBesides(w *podworker.Worker) []*corev1.Pod {
	n.mu.Lock()
	defer n.mu.Unlock()
	var others []*corev1.Pod
	for _, o := range n.workers {
		if o != w && o.IsActive() {
			others = append(others, o.Latest())
		}
	}
	return others
}

// osInfo is what the node's OS tells a container's programs (ver, the
// registry, uname...): derived from the node object the node registers,
// as windows.HostOf reads it.
func (n *emuNode) osInfo() program.OSInfo {
	n.osOnce.Do(func() { n.os = nodeos.Of(n.spec.initialNode(time.Time{})) })
	return n.os
}

func isTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// saveLayers keeps the writable layers of the node's containers
// (podworker SaveLayers) when the agent stops, and adds their IDs to live.
func (n *emuNode) saveLayers(live map[string]bool) {
	n.mu.Lock()
	workers := make([]*podworker.Worker, 0, len(n.workers))
	for _, w := range n.workers {
		workers = append(workers, w)
	}
	n.mu.Unlock()
	for _, w := range workers {
		w.SaveLayers()
		for _, id := range w.LiveIDs() {
			live[id] = true
		}
	}
}
