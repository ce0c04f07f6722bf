package shard

import (
	"context"
	"math"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const (
	// labelGroup marks every Lease of a group, so one List reads them all.
	labelGroup = "winkube.io/shard-group"
	// labelRole tells shard Leases from member Leases.
	labelRole  = "winkube.io/shard-role"
	roleShard  = "shard"
	roleMember = "replica"
	// annotationLayout carries Options.layout on a shard Lease.
	annotationLayout = "winkube.io/shard-layout"
)

// observation is when this replica last saw a Lease change. A Lease is
// expired once it has stayed unchanged for its duration on this clock, so
// clocks of different machines never have to agree.
type observation struct {
	version string
	at      time.Time
}

func holder(l *coordinationv1.Lease) string {
	return ptr.Deref(l.Spec.HolderIdentity, "")
}

// expired says whether l may be taken: no holder, or unchanged since seen
// for longer than its duration.
func expired(l *coordinationv1.Lease, seen observation, now time.Time) bool {
	if holder(l) == "" {
		return true
	}
	d := time.Duration(ptr.Deref(l.Spec.LeaseDurationSeconds, 0)) * time.Second
	return now.Sub(seen.at) >= d
}

// seconds rounds d up to whole seconds, as a Lease counts them.
func seconds(d time.Duration) int32 {
	return int32(math.Ceil(d.Seconds()))
}

// newLease is a Lease of the group, not yet held.
func (o *Options) newLease(name, role string) *coordinationv1.Lease {
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: o.Namespace,
		Labels: map[string]string{labelGroup: o.Group, labelRole: role},
	}}
}

// hold writes this replica as l's holder, renewed now. A new holder counts
// a transition, as client-go does.
func (o *Options) hold(l *coordinationv1.Lease, now time.Time) *coordinationv1.Lease {
	l = l.DeepCopy()
	t := metav1.NewMicroTime(now)
	if holder(l) != o.Identity {
		l.Spec.AcquireTime = &t
		if holder(l) != "" || l.Spec.LeaseTransitions != nil {
			l.Spec.LeaseTransitions = ptr.To(ptr.Deref(l.Spec.LeaseTransitions, 0) + 1)
		}
	}
	l.Spec.HolderIdentity = ptr.To(o.Identity)
	l.Spec.LeaseDurationSeconds = ptr.To(seconds(o.LeaseDuration))
	l.Spec.RenewTime = &t
	return l
}

// write creates l when it has no resourceVersion, else updates it; the
// resourceVersion makes the update fail if anyone wrote l since it was read.
func (o *Options) write(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	leases := o.Client.CoordinationV1().Leases(o.Namespace)
	if l.ResourceVersion == "" {
		return leases.Create(ctx, l, metav1.CreateOptions{})
	}
	return leases.Update(ctx, l, metav1.UpdateOptions{})
}

// acquire takes shard i's Lease l (nil: it does not exist yet) for this
// replica. lost is true when another replica wrote it first.
func (o *Options) acquire(ctx context.Context, i int, l *coordinationv1.Lease, now time.Time) (held *coordinationv1.Lease, lost bool, err error) {
	if l == nil {
		l = o.newLease(o.shardName(i), roleShard)
	}
	l = o.hold(l, now)
	if l.Annotations == nil {
		l.Annotations = map[string]string{}
	}
	l.Annotations[annotationLayout] = o.layout(i)
	held, err = o.write(ctx, l)
	if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
		return nil, true, nil
	}
	return held, false, err
}

// release gives l up: no holder, as client-go's ReleaseOnCancel writes it,
// so that others take it without waiting for it to expire.
func (o *Options) release(ctx context.Context, l *coordinationv1.Lease) error {
	l = l.DeepCopy()
	l.Spec.HolderIdentity = nil
	l.Spec.LeaseDurationSeconds = ptr.To[int32](1)
	now := metav1.NewMicroTime(time.Now())
	l.Spec.RenewTime = &now
	_, err := o.write(ctx, l)
	return err
}
