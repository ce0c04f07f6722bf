package node

import (
	"context"
	"maps"
	"time"

	"github.com/winkube/winkube/pkg/node/internal/podnet"
	"github.com/winkube/winkube/pkg/node/internal/status"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The node status, as the kubelet keeps it: computed every
// statusCheckInterval, posted as a patch of nodes/status when it changed or
// statusReportEvery after the last post.

// syncStatus computes the node status and posts it when it differs from
// the status in the API (heartbeat times aside) or statusReportEvery has
// passed since the last post, as the kubelet's tryUpdateNodeStatus does.
func (n *emuNode) syncStatus(ctx context.Context) {
	now := time.Now()
	cur, err := n.agent.nodeLister.Get(n.spec.name)
	if err == nil && !n.statusDue(cur, now) {
		return
	}
	n.recordStatus(n.postStatus(ctx))
}

// statusDue reports whether the status must be posted now.
func (n *emuNode) statusDue(cur *corev1.Node, now time.Time) bool {
	if now.Sub(n.lastPosted) >= statusReportEvery {
		return true
	}
	want := n.desired(cur, now)
	status.EmulatedAddress(want) // cur is the informer's view (nodeView)
	return status.StatusChanged(&cur.Status, &want.Status) || !maps.Equal(cur.Annotations, want.Annotations)
}

// recordStatus reports the outcome of a status post.
func (n *emuNode) recordStatus(err error) {
	if err != nil {
		n.failed(opNodeStatus, err)
		return
	}
	n.succeeded(opNodeStatus)
}

// postStatus patches the node's status, as the kubelet does: a strategic
// merge patch of nodes/status from the node last seen, so it needs no
// fresh read and never conflicts with the controllers writing the node
// meanwhile (node-ipam, the lifecycle controller's taints). Once the node
// has its network the flannel annotations ride on the same patch; flanneld
// writes them through nodes/status too, and at 1,000 nodes one request
// less per node shortens the startup burst. It emits NodeReady the first
// time the node turns Ready.
func (n *emuNode) postStatus(ctx context.Context) error {
	cur, err := n.current(ctx)
	if err != nil {
		return err
	}
	patch, err := status.StatusPatch(cur, n.desired(cur, time.Now()))
	if err != nil {
		return err
	}
	updated, err := n.client.CoreV1().Nodes().Patch(ctx, n.spec.name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		return err
	}
	n.uid = updated.UID
	n.lastPosted = time.Now()
	if status.Ready(updated) && !n.readyPosted {
		n.readyPosted = true
		n.statusEvent("NodeReady")
	}
	return nil
}

// desired is cur with the status the node reports now and, once its
// network is up, the flannel annotations.
func (n *emuNode) desired(cur *corev1.Node, now time.Time) *corev1.Node {
	want := cur.DeepCopy()
	n.spec.setStatus(want, n.networkReady, now)
	want.Status.Images = n.images.List()
	if n.networkReady {
		if want.Annotations == nil {
			want.Annotations = map[string]string{}
		}
		maps.Copy(want.Annotations, n.flannelAnnotations())
	}
	return want
}

// current is the node to base a status patch on: the object registration
// got back the first time, then the informer's copy, else a fresh read.
// It may be the informer's own object: read it, never change it.
func (n *emuNode) current(ctx context.Context) (*corev1.Node, error) {
	cur := n.known
	n.known = nil
	if cur == nil && n.agent.nodeLister != nil {
		cur, _ = n.agent.nodeLister.Get(n.spec.name)
	}
	if cur != nil {
		return cur, nil
	}
	return n.client.CoreV1().Nodes().Get(ctx, n.spec.name, metav1.GetOptions{})
}

// flannelAnnotations are what flanneld writes on the node once it holds
// the node's subnet (podnet.FlannelAnnotations).
func (n *emuNode) flannelAnnotations() map[string]string {
	return podnet.FlannelAnnotations(n.agent.cluster.Network.Mode, n.spec.name, n.spec.ip, n.spec.host.OS())
}
