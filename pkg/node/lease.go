// The node's Lease in kube-node-lease: the kubelet's heartbeat.

package node

import (
	"context"
	"time"

	"github.com/winkube/winkube/pkg/node/internal/status"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// renewLease creates or renews the node's lease in kube-node-lease, owned by
// the node so it goes away with it.
func (n *emuNode) renewLease(ctx context.Context) {
	leases := n.client.CoordinationV1().Leases(status.LeaseNamespace)
	now := metav1.NewMicroTime(time.Now())
	if n.lease != nil {
		l := n.lease.DeepCopy()
		l.Spec.RenewTime = &now
		if updated, err := leases.Update(ctx, l, metav1.UpdateOptions{}); err == nil {
			n.lease = updated
			n.succeeded(opLease)
			return
		}
	}
	cur, err := leases.Get(ctx, n.spec.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		created, err := leases.Create(ctx, status.NewLease(n.spec.name, n.uid, now), metav1.CreateOptions{})
		if err != nil {
			n.failed(opLease, err)
			return
		}
		n.lease = created
		n.succeeded(opLease)
		return
	}
	if err != nil {
		n.failed(opLease, err)
		return
	}
	cur.Spec.HolderIdentity = ptr.To(n.spec.name)
	cur.Spec.LeaseDurationSeconds = ptr.To[int32](status.LeaseDuration)
	cur.Spec.RenewTime = &now
	cur.OwnerReferences = status.NewLease(n.spec.name, n.uid, now).OwnerReferences
	updated, err := leases.Update(ctx, cur, metav1.UpdateOptions{})
	if err != nil {
		n.failed(opLease, err)
		return
	}
	n.lease = updated
	n.succeeded(opLease)
}
