package node

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/winkube/winkube/pkg/node/internal/podworker"
	"github.com/winkube/winkube/pkg/node/internal/status"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

// The agent's work runs on two delaying queues, each with a fixed pool of
// goroutines, so it costs goroutines in proportion to the pool sizes, not
// to nodes × pods (the shape of kwok's node and pod controllers):
//
//   - the pod queue holds pod workers (internal/podworker). An informer
//     event queues the pod at once; a step returns when the pod is next due
//     (an exit, a back-off, the end of a pull or a grace period) and is
//     queued again for then. A queued pod is handed to one goroutine at a time, and
//     a pod that changes while it is being handled is handled again after.
//     Terminal pods are not queued at all.
//   - the heartbeat queue holds three jobs per node: lease renewal, the
//     node status check and, until the node has one, the pod CIDR poll.
//     It has its own goroutines so that a flood of pod work never delays
//     a lease.

// minWake keeps a pod whose next wake is already past from spinning.
const minWake = 10 * time.Millisecond

// Pool sizes and client limits (see clientLimits).
const (
	// nodesPerPodWorker and maxPodWorkers size the pod pool beyond its
	// floor of 4 per core. A step waits on the API server for most of
	// its time (a status patch, the pull secrets' read), and under load an
	// answer takes tens of milliseconds: with one goroutine per 50 nodes,
	// 250 Windows Server 2019 nodes of 20 pods each had all 10 goroutines
	// waiting on requests while 2,000 bound pods had no status yet. One per
	// 10 nodes keeps that many requests in flight without a goroutine per
	// pod.
	nodesPerPodWorker = 10
	maxPodWorkers     = 256
	// nodesPerBeatWorker: a renewal takes a few milliseconds, so one
	// goroutine would keep up with ~100 nodes renewing every 8–12 s, but
	// at start every node posts its status and flannel annotations at once
	// while kube-apiserver answers in tens of milliseconds: one per 25
	// nodes (40 at 1,000) took 1,000 nodes from registered to Ready in
	// 10 s instead of 13 s. At least 2, at most 40.
	nodesPerBeatWorker = 25
	minBeatWorkers     = 2
	maxBeatWorkers     = 40
	// podsPerNodeMinute and requestsPerPod estimate the pod load the
	// client must carry without throttling: 10 pods per node started
	// within a minute (10,000 pods on 1,000 nodes, the scale goal), each
	// costing about three pod requests (Running, terminated, the final
	// delete; TestRequestsPerPod) and four events.
	podsPerNodeMinute = 10
	requestsPerPod    = 7
	// minAgentQPS is the floor for small clusters: the fixed limit the
	// agent had before, which lets a few nodes start a few hundred pods
	// at once without client-side throttling.
	minAgentQPS = 200
)

// beatJob is one entry of the heartbeat queue.
type beatJob struct {
	node *emuNode
	kind beatKind
}

// podWorkerCount is the size of the pod pool: 4 per core, more for large
// clusters so request latency never starves the queue; o.PodWorkers
// overrides it.
func podWorkerCount(nodes, override int) int {
	if override > 0 {
		return override
	}
	return max(4*runtime.GOMAXPROCS(0), min(maxPodWorkers, nodes/nodesPerPodWorker))
}

func beatWorkerCount(nodes int) int {
	return min(maxBeatWorkers, max(minBeatWorkers, nodes/nodesPerBeatWorker))
}

// clientLimits is the agent's client QPS and burst for a cluster of
// nodes nodes. It adds up what the pools send at most:
//
//	leases:  nodes / 8 s                (the shortest jittered renewal)
//	pods:    nodes × 10 / 60 s × 7      (podsPerNodeMinute × requestsPerPod)
//	QPS   =  nodes × (0.125 + 1.17) ≈ 1.3 × nodes, at least 200
//	burst =  2 × QPS                    (the kubelet's 50/100 ratio)
//
// Node status posts (on change, or every 5 min) are lost in the rounding.
// At 1,000 nodes that is 1,292 QPS: the API server's own limits, not the
// agent's client, decide how fast work goes.
func clientLimits(nodes int) (qps float32, burst int) {
	leases := float64(nodes) / status.LeaseRenewDelay(0).Seconds() // the fastest renewal
	pods := float64(nodes) * podsPerNodeMinute / 60 * requestsPerPod
	q := max(minAgentQPS, math.Ceil(leases+pods))
	return float32(q), int(2 * q)
}

// newQueues makes the two queues on the agent's clock.
func (a *Agent) newQueues() {
	a.pods = workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[*podworker.Worker]{Clock: a.clock})
	a.beats = workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[beatJob]{Clock: a.clock})
}

// runQueues starts the pools and the heartbeats of every node. Each node's
// first status check comes at a random point of the check interval, so the
// checks of nodes registered together are spread out as the renewals are.
func (a *Agent) runQueues(ctx context.Context) {
	now := a.clock.Now()
	for _, name := range a.names {
		n := a.nodes[name]
		n.started = now
		a.beats.Add(beatJob{n, beatLease})
		a.beats.Add(beatJob{n, beatCIDR})
		a.beats.AddAfter(beatJob{n, beatStatus}, time.Duration(rand.Int64N(int64(statusCheckInterval))))
	}
	for range beatWorkerCount(len(a.names)) {
		a.wg.Go(func() {
			for a.nextBeat(ctx) {
			}
		})
	}
	for range a.podWorkers {
		a.wg.Go(func() {
			for a.nextPod(ctx) {
			}
		})
	}
}

// nextPod runs one pod step; false once the queue is shut down.
func (a *Agent) nextPod(ctx context.Context) bool {
	w, quit := a.pods.Get()
	if quit {
		return false
	}
	defer a.pods.Done(w)
	if ctx.Err() != nil {
		return true
	}
	if wake := w.Step(ctx); !wake.IsZero() {
		a.pods.AddAfter(w, max(wake.Sub(a.clock.Now()), minWake))
	}
	return true
}

// nextBeat runs one heartbeat job; false once the queue is shut down.
func (a *Agent) nextBeat(ctx context.Context) bool {
	j, quit := a.beats.Get()
	if quit {
		return false
	}
	defer a.beats.Done(j)
	if ctx.Err() != nil {
		return true
	}
	if next := j.node.beat(ctx, j.kind); next > 0 {
		a.beats.AddAfter(j, next)
	}
	return true
}

// shutDownQueues stops the pools; queued work is dropped.
func (a *Agent) shutDownQueues() {
	if a.pods != nil {
		a.pods.ShutDown()
	}
	if a.beats != nil {
		a.beats.ShutDown()
	}
}

// realClock is the agent's default time source.
var realClock clock.WithTicker = clock.RealClock{}
