// The node's Lease in kube-node-lease: the kubelet's heartbeat.

package node

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// leaseRenewDelay is the wait before the next lease renewal for r, a uniform
// random number in [0, 1): the interval scaled by 1-jitter up to 1+jitter.
// Each wait is drawn afresh, so nodes that start in step drift apart within
// a few renewals.
func leaseRenewDelay(r float64) time.Duration {
	scale := 1 + leaseRenewJitter*(2*r-1)
	return time.Duration(float64(leaseRenewInterval) * scale)
}

// renewLease creates or renews the node's lease in kube-node-lease, owned by
// the node so it goes away with it.
func (n *emuNode) renewLease(ctx context.Context) {
	leases := n.agent.client.CoordinationV1().Leases(leaseNamespace)
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
		created, err := leases.Create(ctx, n.newLease(now), metav1.CreateOptions{})
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
	cur.Spec.LeaseDurationSeconds = ptr.To[int32](leaseDuration)
	cur.Spec.RenewTime = &now
	cur.OwnerReferences = n.newLease(now).OwnerReferences
	updated, err := leases.Update(ctx, cur, metav1.UpdateOptions{})
	if err != nil {
		n.failed(opLease, err)
		return
	}
	n.lease = updated
	n.succeeded(opLease)
}

func (n *emuNode) newLease(now metav1.MicroTime) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{
			Name:      n.spec.name,
			Namespace: leaseNamespace,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Node", Name: n.spec.name, UID: n.uid,
			}},
		},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To(n.spec.name),
			LeaseDurationSeconds: ptr.To[int32](leaseDuration),
			RenewTime:            &now,
		},
	}
}
