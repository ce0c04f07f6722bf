package shard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
)

// The integration tests share one real control plane; under -short they
// skip.
var restConfig *rest.Config

func TestMain(m *testing.M) {
	os.Exit(cptest.Main(m, func(_ *controlplane.ControlPlane, cfg *rest.Config) (func(), error) {
		restConfig = cfg
		return nil, nil
	}))
}

func needCluster(t *testing.T) kubernetes.Interface {
	t.Helper()
	if restConfig == nil {
		t.Skip("needs a control plane (not with -short)")
	}
	return kubernetes.NewForConfigOrDie(restConfig)
}

func fakeClient() kubernetes.Interface { return fake.NewClientset() }

func nopStart(context.Context, int) (io.Closer, error) { return io.NopCloser(nil), nil }

// cuttable is a client whose every request fails while cut is set: a
// replica cut off from the API server but still running.
func cuttable(t *testing.T, cut *atomic.Bool) kubernetes.Interface {
	cfg := rest.CopyConfig(restConfig)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			if cut.Load() {
				return nil, errors.New("test: cut off from the API server")
			}
			return rt.RoundTrip(r)
		})
	}
	return kubernetes.NewForConfigOrDie(cfg)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// interval is one replica running one shard, from Start to Close.
type interval struct {
	replica     string
	start, stop time.Time // stop zero: still running
}

// recorder stands in for the node agents: it records when each replica
// runs each shard and flags a shard started while another replica runs it.
type recorder struct {
	mu      sync.Mutex
	runs    map[int][]*interval
	overlap []string
}

func newRecorder() *recorder { return &recorder{runs: map[int][]*interval{}} }

func (r *recorder) start(replica string) func(context.Context, int) (io.Closer, error) {
	return func(_ context.Context, shard int) (io.Closer, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, iv := range r.runs[shard] {
			if iv.stop.IsZero() {
				r.overlap = append(r.overlap, fmt.Sprintf("shard %d started by %s while %s runs it", shard, replica, iv.replica))
			}
		}
		iv := &interval{replica: replica, start: time.Now()}
		r.runs[shard] = append(r.runs[shard], iv)
		return closer(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			iv.stop = time.Now()
		}), nil
	}
}

type closer func()

func (c closer) Close() error { c(); return nil }

// running counts the shards each replica runs now.
func (r *recorder) running() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for _, ivs := range r.runs {
		for _, iv := range ivs {
			if iv.stop.IsZero() {
				out[iv.replica]++
			}
		}
	}
	return out
}

// checkNoOverlap fails if any shard ran in two replicas at once.
func (r *recorder) checkNoOverlap(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, o := range r.overlap {
		t.Error(o)
	}
	for shard, ivs := range r.runs {
		sorted := append([]*interval(nil), ivs...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i].start.Before(sorted[j].start) })
		for k := 1; k < len(sorted); k++ {
			prev := sorted[k-1]
			if prev.stop.IsZero() || sorted[k].start.Before(prev.stop) {
				t.Errorf("shard %d: %s ran it from %s while %s did until %v", shard, sorted[k].replica,
					sorted[k].start.Format("15:04:05.000"), prev.replica, prev.stop.Format("15:04:05.000"))
			}
		}
	}
}

// waitFor polls cond every 50 ms until it holds or within passes.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	began := time.Now()
	for !cond() {
		if time.Since(began) > within {
			t.Fatalf("not within %s: %s", within, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(began)
}
