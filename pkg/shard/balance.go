package shard

import (
	"context"
	"fmt"
	"sort"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// share is how many of n shards the replica at position r of the sorted
// live replicas should hold: n/count each, the first n%count one more, so
// that the shares add up to n whatever the count.
func share(n, count, r int) int {
	s := n / count
	if r < n%count {
		s++
	}
	return s
}

// home says shard i is one replica r prefers: i ≡ r (mod count). Replicas
// that prefer different shards hand fewer back and forth when one joins.
func home(i, count, r int) bool { return i%count == r }

// balance gives shards up above this replica's share and takes free or
// expired ones below it, preferring its home shards.
func (m *manager) balance(ctx context.Context, shards map[int]*coordinationv1.Lease, members []string, now time.Time) {
	r := sort.SearchStrings(members, m.o.Identity)
	want := share(m.o.Shards, len(members), r)
	order := m.preference(len(members), r)
	if extra := m.staying() - want; extra > 0 {
		for k := len(order) - 1; k >= 0 && extra > 0; k-- {
			if h, ok := m.held[order[k]]; ok && !h.leaving() {
				close(h.release)
				extra--
			}
		}
		return
	}
	for _, i := range order {
		if len(m.held) >= want {
			return
		}
		if _, ok := m.held[i]; ok {
			continue
		}
		l := shards[i]
		if l != nil && (holder(l) == m.o.Identity || !expired(l, m.seen[l.Name], now)) {
			// A Lease naming this replica that it does not run is left to
			// expire too: it may be from another process with this identity.
			continue
		}
		m.take(ctx, i, l)
	}
}

// staying counts the held shards not told to leave.
func (m *manager) staying() int {
	n := 0
	for _, h := range m.held {
		if !h.leaving() {
			n++
		}
	}
	return n
}

// preference lists the shards home first, each part in index order.
func (m *manager) preference(count, r int) []int {
	var first, rest []int
	for i := 0; i < m.o.Shards; i++ {
		if home(i, count, r) {
			first = append(first, i)
		} else {
			rest = append(rest, i)
		}
	}
	return append(first, rest...)
}

// take acquires shard i's Lease and starts the shard.
func (m *manager) take(ctx context.Context, i int, l *coordinationv1.Lease) {
	at := time.Now()
	held, lost, err := m.o.acquire(ctx, i, l, at)
	if err != nil {
		if ctx.Err() == nil {
			m.failed(fmt.Sprintf("shard %d/%d: taking its lease", i, m.o.Shards), err)
		}
		return
	}
	m.worked(fmt.Sprintf("shard %d/%d: taking its lease", i, m.o.Shards))
	if lost {
		return
	}
	m.say("shard %d/%d: taken by %s", i, m.o.Shards, m.o.Identity)
	h := &holding{shard: i, release: make(chan struct{}), done: make(chan struct{})}
	m.held[i] = h
	go m.hold(ctx, h, held, at)
}

// renewMember keeps this replica's member Lease alive, so the others count
// it in their shares.
func (m *manager) renewMember(ctx context.Context) {
	leases := m.o.Client.CoordinationV1().Leases(m.o.Namespace)
	l := m.member
	if l == nil {
		cur, err := leases.Get(ctx, m.o.memberName(), metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			l = m.o.newLease(m.o.memberName(), roleMember)
		case err != nil:
			m.failed("member lease "+m.o.memberName(), err)
			return
		default:
			l = cur
		}
	}
	next, err := m.o.write(ctx, m.o.hold(l, time.Now()))
	if err != nil {
		m.member = nil // read it again next time
		if ctx.Err() == nil {
			m.failed("member lease "+m.o.memberName(), err)
		}
		return
	}
	m.worked("member lease " + m.o.memberName())
	m.member = next
}

// forget deletes the member Lease of a replica gone for twice its lease
// duration, so that replicas coming and going leave no litter. The
// precondition keeps a replica that came back.
func (m *manager) forget(ctx context.Context, l *coordinationv1.Lease, now time.Time) {
	d := time.Duration(2*seconds(m.o.LeaseDuration)) * time.Second
	if now.Sub(m.seen[l.Name].at) < d {
		return
	}
	rv := l.ResourceVersion
	err := m.o.Client.CoordinationV1().Leases(m.o.Namespace).Delete(ctx, l.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{ResourceVersion: &rv},
	})
	if err == nil || apierrors.IsNotFound(err) {
		delete(m.seen, l.Name)
	}
}

// leave deletes this replica's member Lease, so the others count it out
// at once.
func (m *manager) leave() {
	ctx, cancel := context.WithTimeout(context.Background(), m.o.RenewDeadline)
	defer cancel()
	err := m.o.Client.CoordinationV1().Leases(m.o.Namespace).Delete(ctx, m.o.memberName(), metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		m.say("deleting member lease %s: %v", m.o.memberName(), err)
	}
}
