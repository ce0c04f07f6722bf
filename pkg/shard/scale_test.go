package shard

import (
	"context"
	"fmt"
	"io"
	"maps"
	"sort"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/node"
)

// BenchmarkReplicas runs 40 emulated nodes in 8 shards with 1, 2 and 4
// replicas against the real control plane and reports how long until
// every shard runs in one replica with its nodes Ready (ready-s), and how
// long after one replica dies without releasing its Leases until that
// holds again (handover-s; 2 s leases). Run it with -benchtime=1x:
//
//	go test ./pkg/shard -run '^$' -bench Replicas -benchtime=1x
func BenchmarkReplicas(b *testing.B) {
	if restConfig == nil {
		b.Skip("needs a control plane (not with -short)")
	}
	for _, replicas := range []int{1, 2, 4} {
		b.Run(fmt.Sprint(replicas), func(b *testing.B) {
			for range b.N {
				ready, handOver := scaleRun(b, replicas, 40, 8)
				b.ReportMetric(ready.Seconds(), "ready-s")
				if replicas > 1 {
					b.ReportMetric(handOver.Seconds(), "handover-s")
				}
			}
		})
	}
}

func scaleRun(b *testing.B, replicas, nodes, shards int) (ready, handOver time.Duration) {
	client := kubernetes.NewForConfigOrDie(restConfig)
	cfg := v1alpha1.DefaultCluster()
	linux, windows := nodes/2, nodes-nodes/2
	cfg.NodePools = cfg.NodePools[:2] // linux and win2019
	cfg.NodePools[0].Count, cfg.NodePools[1].Count = &linux, &windows
	agentConfig := rest.CopyConfig(restConfig)
	agentConfig.QPS, agentConfig.Burst = 0, 0 // the agent sizes its own limits
	var names []string
	for _, n := range cfg.Nodes() {
		names = append(names, n.Name)
	}
	sort.Strings(names)
	blocks := Split(names, shards)
	ns := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	state := &shardState{ready: map[int]string{}}
	start := func(id string) func(context.Context, int) (io.Closer, error) {
		return func(ctx context.Context, i int) (io.Closer, error) {
			in := map[string]bool{}
			for _, n := range blocks[i] {
				in[n] = true
			}
			a, err := node.Start(ctx, node.Options{Config: agentConfig, Cluster: cfg, Nodes: func(n string) bool { return in[n] }})
			if err != nil {
				return nil, err
			}
			return state.watch(a, i, id), nil
		}
	}
	began := time.Now()
	var stops []*replica
	var ids []string
	for r := range replicas {
		id := fmt.Sprintf("r%d", r)
		ids = append(ids, id)
		o := Options{Client: client, Namespace: "default", Group: ns, Identity: id, Shards: shards,
			LeaseDuration: testLease, RenewDeadline: testRenew, RetryPeriod: testRetry, Start: start(id)}
		stops = append(stops, runReplica(o))
	}
	defer func() {
		for _, r := range stops {
			r.stop()
		}
		_ = client.CoreV1().Nodes().DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{})
	}()
	state.waitAll(b, shards, ids, 2*time.Minute)
	ready = time.Since(began)
	if replicas > 1 {
		stops[0].stop() // without ReleaseOnCancel: a crash
		crashed := time.Now()
		state.waitAll(b, shards, ids[1:], time.Minute)
		handOver = time.Since(crashed)
	}
	return ready, handOver
}

func runReplica(o Options) *replica {
	ctx, cancel := context.WithCancel(context.Background())
	r := &replica{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = Run(ctx, o)
	}()
	return r
}

// shardState tracks which shards run Ready, and where.
type shardState struct {
	mu    sync.Mutex
	ready map[int]string // shard → replica whose agent is Ready
}

func (s *shardState) watch(a *node.Agent, i int, id string) io.Closer {
	stopped := make(chan struct{})
	go func() {
		select {
		case <-a.Ready():
			s.mu.Lock()
			s.ready[i] = id
			s.mu.Unlock()
		case <-stopped:
		}
	}()
	return closer(func() {
		close(stopped)
		a.Close()
		s.mu.Lock()
		if s.ready[i] == id {
			delete(s.ready, i)
		}
		s.mu.Unlock()
	})
}

// waitAll waits until every shard runs Ready, split between the replicas
// ids as Run balances them.
func (s *shardState) waitAll(b *testing.B, shards int, ids []string, within time.Duration) {
	want := map[string]int{}
	for r, id := range ids {
		want[id] = share(shards, len(ids), r)
	}
	began := time.Now()
	for {
		s.mu.Lock()
		have := map[string]int{}
		for _, id := range s.ready {
			have[id]++
		}
		s.mu.Unlock()
		if maps.Equal(have, want) {
			return
		}
		if time.Since(began) > within {
			b.Fatalf("shards Ready per replica after %s: %v, want %v", within, have, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
