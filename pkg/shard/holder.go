package shard

import (
	"context"
	"fmt"
	"io"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// holding is one shard this replica holds: a goroutine that runs it and
// renews its Lease until the Lease is lost, released or Run ends.
type holding struct {
	shard   int
	release chan struct{} // closed: give the shard up (rebalancing)
	done    chan struct{} // closed once the shard is stopped
	err     error         // Start's error, read after done
}

func (h *holding) leaving() bool {
	select {
	case <-h.release:
		return true
	default:
		return false
	}
}

type started struct {
	closer io.Closer
	err    error
}

// hold runs shard h.shard under Lease l, last renewed at renewed (the time
// before the write that succeeded, so never later than the API server saw).
func (m *manager) hold(ctx context.Context, h *holding, l *coordinationv1.Lease, renewed time.Time) {
	defer close(h.done)
	o := m.o
	key := fmt.Sprintf("shard %d/%d: renewing its lease (retried for %s)", h.shard, o.Shards, o.RenewDeadline)
	defer m.settled(key)
	runCtx, cancel := context.WithCancel(context.Background())
	starting := make(chan started, 1)
	go func() {
		c, err := o.Start(runCtx, h.shard)
		starting <- started{c, err}
	}()
	var running io.Closer
	// stop ends the shard and waits until it has: only then may the Lease
	// be given up or left to expire.
	stop := func() {
		cancel()
		if starting != nil {
			if s := <-starting; s.err == nil {
				running = s.closer
			}
		}
		if running != nil {
			_ = running.Close()
		}
	}
	deadline := time.NewTimer(time.Until(renewed.Add(o.RenewDeadline)))
	defer deadline.Stop()
	tick := time.NewTicker(o.RetryPeriod)
	defer tick.Stop()
	for {
		select {
		case s := <-starting:
			starting = nil
			if s.err != nil {
				h.err = fmt.Errorf("shard %d: %w", h.shard, s.err)
				m.giveUp(l)
				return
			}
			running = s.closer
		case <-deadline.C:
			// Not renewed for RenewDeadline: stop now, while the Lease is
			// still ours for LeaseDuration-RenewDeadline in anyone's view.
			stop()
			m.say("shard %d/%d: stopped, its lease was not renewed within %s", h.shard, o.Shards, o.RenewDeadline)
			return
		case <-h.release:
			stop()
			m.giveUp(l)
			m.say("shard %d/%d: released to balance the replicas", h.shard, o.Shards)
			return
		case <-ctx.Done():
			stop()
			if o.ReleaseOnCancel {
				m.giveUp(l)
			}
			return
		case <-tick.C:
			next, at, err := m.renew(ctx, l, renewed)
			if err != nil {
				m.failed(key, err)
				if lost(err) {
					stop()
					m.say("shard %d/%d: stopped, another replica holds its lease", h.shard, o.Shards)
					return
				}
				continue
			}
			m.worked(key)
			l, renewed = next, at
			deadline.Reset(time.Until(renewed.Add(o.RenewDeadline)))
		}
	}
}

// renew writes l again; the calls may take no longer than the renew
// deadline allows. A conflict may be our own earlier renewal that timed
// out here but reached the API server: if the Lease still names this
// replica, it is renewed from the version read back.
func (m *manager) renew(ctx context.Context, l *coordinationv1.Lease, renewed time.Time) (*coordinationv1.Lease, time.Time, error) {
	ctx, cancel := context.WithDeadline(ctx, renewed.Add(m.o.RenewDeadline))
	defer cancel()
	at := time.Now()
	next, err := m.o.write(ctx, m.o.hold(l, at))
	if apierrors.IsConflict(err) {
		cur, getErr := m.o.Client.CoordinationV1().Leases(l.Namespace).Get(ctx, l.Name, metav1.GetOptions{})
		if getErr == nil && holder(cur) == m.o.Identity {
			next, err = m.o.write(ctx, m.o.hold(cur, at))
		}
	}
	return next, at, err
}

// lost says the Lease is someone else's now: written or deleted by another.
func lost(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsNotFound(err)
}

// giveUp releases l after the shard has stopped; failing that, l expires.
func (m *manager) giveUp(l *coordinationv1.Lease) {
	ctx, cancel := context.WithTimeout(context.Background(), m.o.RenewDeadline)
	defer cancel()
	if err := m.o.release(ctx, l); err != nil {
		m.say("releasing lease %s (it expires in %s instead): %v", l.Name, m.o.LeaseDuration, err)
	}
}
