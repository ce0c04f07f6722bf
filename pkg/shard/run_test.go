package shard

import (
	"context"
	"maps"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/controlplane/cptest"
)

// Short leases keep the tests quick; the timing argument is the same as
// with the command's 15 s / 10 s / 2 s.
const (
	testLease = 2 * time.Second
	testRenew = time.Second
	testRetry = 200 * time.Millisecond
	// handOver bounds a hand-over: one lease period for the Lease to
	// expire, a retry to notice, a retry to take it, and slack for a busy
	// test machine.
	handOver = testLease + 2*testRetry + 1500*time.Millisecond
)

// replica runs one replica of a 4-shard group until its cancel is called;
// done is closed when Run has returned.
type replica struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

func startReplica(t *testing.T, client kubernetes.Interface, ns, id string, rec *recorder, release bool) *replica {
	ctx, cancel := context.WithCancel(context.Background())
	r := &replica{cancel: cancel, done: make(chan struct{})}
	o := Options{
		Client: client, Namespace: ns, Group: "test", Identity: id, Shards: 4,
		LeaseDuration: testLease, RenewDeadline: testRenew, RetryPeriod: testRetry,
		ReleaseOnCancel: release, Start: rec.start(id), Progress: testWriter{t, id},
	}
	go func() {
		defer close(r.done)
		r.err = Run(ctx, o)
	}()
	t.Cleanup(r.stop)
	return r
}

func (r *replica) stop() {
	r.cancel()
	<-r.done
}

type testWriter struct {
	t  *testing.T
	id string
}

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s %s: %s", time.Now().Format("15:04:05.000"), w.id, strings.TrimSpace(string(p)))
	return len(p), nil
}

func split(rec *recorder, want map[string]int) func() bool {
	return func() bool { return maps.Equal(rec.running(), want) }
}

// Two replicas split four shards 2/2; when one dies without releasing
// anything, the other runs all four within one lease period, and no shard
// ever runs in both.
func TestReplicaDiesOtherTakesOver(t *testing.T) {
	client := needCluster(t)
	ns := cptest.Namespace(t, client)
	rec := newRecorder()
	a := startReplica(t, client, ns, "a", rec, true)
	waitFor(t, 10*time.Second, "a alone runs all 4 shards", split(rec, map[string]int{"a": 4}))
	b := startReplica(t, client, ns, "b", rec, false)
	waitFor(t, 10*time.Second, "a and b run 2 shards each", split(rec, map[string]int{"a": 2, "b": 2}))

	b.stop() // a crash: b's shards stop, its Leases stay held
	took := waitFor(t, handOver+time.Second, "a runs all 4 shards again", split(rec, map[string]int{"a": 4}))
	t.Logf("hand-over after the crash: %s (lease %s, retry %s)", took.Round(time.Millisecond), testLease, testRetry)
	if took > handOver {
		t.Errorf("hand-over took %s, want within %s (one lease period plus retries)", took, handOver)
	}
	if took < testLease-testRetry {
		t.Errorf("hand-over took %s: a took b's shards before their Leases could expire (%s)", took, testLease)
	}
	a.stop()
	rec.checkNoOverlap(t)
	if a.err != nil || b.err != nil {
		t.Errorf("Run: a %v, b %v", a.err, b.err)
	}
}

// A replica cut off from the API server but still running stops its shards
// at the renew deadline, before the other replica can take them; when it
// comes back it gets its share again. No shard ever runs in both.
func TestCutOffReplicaStopsBeforeHandOver(t *testing.T) {
	client := needCluster(t)
	ns := cptest.Namespace(t, client)
	rec := newRecorder()
	var cut atomic.Bool
	a := startReplica(t, client, ns, "a", rec, true)
	startReplica(t, cuttable(t, &cut), ns, "b", rec, true)
	waitFor(t, 10*time.Second, "a and b run 2 shards each", split(rec, map[string]int{"a": 2, "b": 2}))

	cut.Store(true)
	stopped := waitFor(t, testRenew+time.Second, "b stops its shards", split(rec, map[string]int{"a": 2}))
	took := waitFor(t, handOver, "a runs all 4 shards", split(rec, map[string]int{"a": 4}))
	t.Logf("cut off: b stopped after %s, a ran all after %s more", stopped.Round(time.Millisecond), took.Round(time.Millisecond))

	cut.Store(false)
	waitFor(t, 3*testLease, "a and b split the shards again", split(rec, map[string]int{"a": 2, "b": 2}))
	a.stop()
	rec.checkNoOverlap(t)
}

// A replica started with another shard count refuses to run next to live
// replicas of the old one instead of running some nodes twice.
func TestOtherLayoutRefused(t *testing.T) {
	client := needCluster(t)
	ns := cptest.Namespace(t, client)
	rec := newRecorder()
	startReplica(t, client, ns, "a", rec, true)
	waitFor(t, 10*time.Second, "a runs all 4 shards", split(rec, map[string]int{"a": 4}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := Run(ctx, Options{
		Client: client, Namespace: ns, Group: "test", Identity: "c", Shards: 2,
		LeaseDuration: testLease, RenewDeadline: testRenew, RetryPeriod: testRetry,
		Start: rec.start("c"),
	})
	if err == nil || !strings.Contains(err.Error(), "same shard count") {
		t.Errorf("Run with 2 shards next to 4: %v, want a layout error", err)
	}
	rec.checkNoOverlap(t)
}
