package shard

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// manager is one replica's view: what it saw of the group's Leases and the
// shards it holds.
type manager struct {
	o      Options
	seen   map[string]observation // by Lease name
	held   map[int]*holding
	member *coordinationv1.Lease // this replica's member Lease, as last written
	sayMu  sync.Mutex
	// failing holds the calls that failed last time, so each failure is
	// said once when it starts and once when it stops (failing.go).
	failing map[string]bool
}

// Run takes part in the group until ctx ends: it keeps this replica's
// member Lease alive and, every RetryPeriod, takes or gives up shards so
// that the live replicas split them evenly. It returns nil when ctx ends,
// after every shard it ran has stopped, and an error when a shard cannot
// start or another replica runs a different layout.
func Run(ctx context.Context, o Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	m := &manager{o: o, seen: map[string]observation{}, held: map[int]*holding{}, failing: map[string]bool{}}
	err := m.loop(ctx)
	m.stopAll(err != nil)
	if o.ReleaseOnCancel || err != nil {
		m.leave()
	}
	return err
}

func (m *manager) loop(ctx context.Context) error {
	tick := time.NewTicker(m.o.RetryPeriod)
	defer tick.Stop()
	for {
		if err := m.round(ctx); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// round is one look at the group's Leases and the moves it calls for.
func (m *manager) round(ctx context.Context) error {
	if err := m.reap(); err != nil {
		return err
	}
	m.renewMember(ctx)
	list, err := m.o.Client.CoordinationV1().Leases(m.o.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: labels.Set{labelGroup: m.o.Group}.String(),
	})
	if err != nil {
		if ctx.Err() == nil {
			m.failed("reading the shard leases in namespace "+m.o.Namespace, err)
		}
		return nil
	}
	m.worked("reading the shard leases in namespace " + m.o.Namespace)
	now := time.Now()
	shards := map[int]*coordinationv1.Lease{}
	var members []string
	for i := range list.Items {
		l := &list.Items[i]
		live := !expired(l, m.observe(l, now), now)
		switch l.Labels[labelRole] {
		case roleShard:
			if i, ok := m.shardIndex(l.Name); ok {
				shards[i] = l
			}
		case roleMember:
			if live || holder(l) == m.o.Identity {
				members = append(members, holder(l))
			} else {
				m.forget(ctx, l, now)
			}
		}
	}
	if err := m.checkLayout(shards, now); err != nil {
		return err
	}
	members = withSelf(members, m.o.Identity)
	m.balance(ctx, shards, members, now)
	return nil
}

// observe records l's version and returns when it last changed.
func (m *manager) observe(l *coordinationv1.Lease, now time.Time) observation {
	s, ok := m.seen[l.Name]
	if !ok || s.version != l.ResourceVersion {
		s = observation{version: l.ResourceVersion, at: now}
		m.seen[l.Name] = s
	}
	return s
}

func (m *manager) shardIndex(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, m.o.Group+"-shard-")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(rest)
	return i, err == nil && i >= 0 && i < m.o.Shards
}

// checkLayout refuses to run next to a live replica whose shard holds
// other work: two layouts would run some nodes twice.
func (m *manager) checkLayout(shards map[int]*coordinationv1.Lease, now time.Time) error {
	for i, l := range shards {
		have := l.Annotations[annotationLayout]
		if have == "" || have == m.o.layout(i) || holder(l) == m.o.Identity || expired(l, m.seen[l.Name], now) {
			continue
		}
		return fmt.Errorf("lease %s/%s is held by %s for shard %q, not %q: every replica needs the same shard count and config",
			m.o.Namespace, l.Name, holder(l), have, m.o.layout(i))
	}
	return nil
}

// reap forgets the shards whose goroutine has ended; a Start error ends Run.
func (m *manager) reap() error {
	var errs []error
	for i, h := range m.held {
		select {
		case <-h.done:
			delete(m.held, i)
			if h.err != nil {
				errs = append(errs, h.err)
			}
		default:
		}
	}
	return errors.Join(errs...)
}

// stopAll stops every held shard; release says to give their Leases up
// even when Options.ReleaseOnCancel does not (Run fails).
func (m *manager) stopAll(release bool) {
	for _, h := range m.held {
		if release && !h.leaving() {
			close(h.release)
		}
	}
	for _, h := range m.held {
		<-h.done
	}
}

func withSelf(members []string, self string) []string {
	for _, id := range members {
		if id == self {
			sort.Strings(members)
			return members
		}
	}
	members = append(members, self)
	sort.Strings(members)
	return members
}

func (m *manager) say(format string, args ...any) {
	if m.o.Progress == nil {
		return
	}
	m.sayMu.Lock()
	defer m.sayMu.Unlock()
	fmt.Fprintf(m.o.Progress, format+"\n", args...)
}
