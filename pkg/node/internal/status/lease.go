package status

import (
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// The node's Lease in kube-node-lease: the kubelet's heartbeat, renewed
// every 10 s (give or take leaseRenewJitter) and lasting 40 s.
const (
	LeaseNamespace     = "kube-node-lease"
	LeaseDuration      = 40
	leaseRenewInterval = 10 * time.Second
	// leaseRenewJitter spreads renewals over ±20% of the interval (8-12 s).
	// Nodes started together would otherwise renew in the same instant
	// forever: 1,000 nodes sent 1,000 updates at once every 10 s, a burst
	// that queues behind the agent's rate limiter and the apiserver's
	// in-flight limit. 12 s still leaves three renewals per 40 s lease.
	leaseRenewJitter = 0.2
)

// LeaseRenewDelay is the wait before the next lease renewal for r, a uniform
// random number in [0, 1): the interval scaled by 1-jitter up to 1+jitter.
// Each wait is drawn afresh, so nodes that start in step drift apart within
// a few renewals.
func LeaseRenewDelay(r float64) time.Duration {
	scale := 1 + leaseRenewJitter*(2*r-1)
	return time.Duration(float64(leaseRenewInterval) * scale)
}

// NewLease is the node's Lease in kube-node-lease, owned by the node (uid)
// so that it goes away with it.
func NewLease(node string, uid types.UID, now metav1.MicroTime) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{
			Name:      node,
			Namespace: LeaseNamespace,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Node", Name: node, UID: uid,
			}},
		},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To(node),
			LeaseDurationSeconds: ptr.To[int32](LeaseDuration),
			RenewTime:            &now,
		},
	}
}
