package controlplane

import (
	"math"
	"os"
	"strconv"
)

// Sizing for emulated scale.
//
// Upstream's client limits suit a real cluster of about a hundred nodes:
// every kube-controller-manager controller has its own client (winkube runs
// it with --use-service-account-credentials) held to 20 requests/s, so the
// ReplicaSet controller creates and the garbage collector deletes about 20
// pods/s however fast the emulated nodes are. Emulated nodes cost the
// control plane no more per pod than real ones, so winkube lets those limits
// grow with the cluster: up to smallCluster nodes nothing changes, and above
// it every limit below is its upstream default times
//
//	scale = min(nodes / smallCluster, maxScale)
//
// which is 10 at 1,000 nodes (the controller-manager's controllers at 200
// requests/s each, the scheduler at 500). It stops there: on a two-core
// machine the apiserver's CPU, not a client limit, bounds anything larger,
// and more parallelism only adds contention; the controlPlane section of the
// Cluster config can still raise any of them.
//
// The apiserver's in-flight limits (the total concurrency API Priority and
// Fairness divides among priority levels) grow at half that rate: loopback
// requests are short, so concurrency grows slower than the request rate,
// but a burst of heartbeats or pod creations must not be answered with 429
// at the defaults' 600 seats.
const (
	smallCluster = 100
	maxScale     = 10
)

// tunable is one sized flag: its upstream default and how it scales.
type tunable struct {
	flag     string
	upstream float64
	half     bool // grows at half the scale (the apiserver's in-flight limits)
}

// tunables are winkube's sized flags per component; the upstream defaults
// are those of the release built in (kubeversion.Default).
var tunables = map[string][]tunable{
	apiserverName: {
		{flag: "max-requests-inflight", upstream: 400, half: true},
		{flag: "max-mutating-requests-inflight", upstream: 200, half: true},
	},
	// Without a --config file the scheduler still takes its (deprecated)
	// client flags, which avoids writing a KubeSchedulerConfiguration.
	schedulerName: {
		{flag: "kube-api-qps", upstream: 50},
		{flag: "kube-api-burst", upstream: 100},
	},
	controllerManagerName: {
		{flag: "kube-api-qps", upstream: 20},
		{flag: "kube-api-burst", upstream: 30},
		{flag: "concurrent-replicaset-syncs", upstream: 5},
		{flag: "concurrent-deployment-syncs", upstream: 5},
		{flag: "concurrent-job-syncs", upstream: 5},
		{flag: "concurrent-daemonset-syncs", upstream: 2},
		{flag: "concurrent-gc-syncs", upstream: 20},
	},
}

// clusterScale is the factor of the limits for a cluster of n nodes.
func clusterScale(nodes int) float64 {
	return min(max(float64(nodes)/smallCluster, 1), maxScale)
}

// sizedFlags are the flags winkube sets on a component for a cluster of n
// nodes; none for a small cluster, which keeps every upstream default.
func sizedFlags(component string, nodes int) map[string]string {
	scale := clusterScale(nodes)
	if scale == 1 {
		return nil
	}
	flags := map[string]string{}
	for _, t := range tunables[component] {
		s := scale
		if t.half {
			s = max(scale/2, 1)
		}
		flags[t.flag] = strconv.Itoa(int(math.Round(t.upstream * s)))
	}
	return flags
}

// Memory of the components. Go's default GOGC=100 lets a heap grow to
// twice what it holds live before collecting; in a small cluster, where
// the live heaps are small and the CPU is idle, the components run with
// smallClusterGOGC, so that each holds about a quarter less memory for a
// few milliseconds more GC a second. The percentage grows with the cluster
// (clusterScale) and reaches Go's default at twice smallCluster nodes, where
// the components' CPU, of which GC takes its share, is what bounds the
// pods.
const smallClusterGOGC = 50

// gcPercent is the components' GOGC for a cluster of n nodes.
func gcPercent(nodes int) int {
	return int(math.Round(min(smallClusterGOGC*clusterScale(nodes), 100)))
}

// componentEnv is what a component's process gets beside winkube's own
// environment: its GOGC, unless the environment sets one.
func componentEnv(nodes int) []string {
	if _, set := os.LookupEnv("GOGC"); set {
		return nil
	}
	return []string{"GOGC=" + strconv.Itoa(gcPercent(nodes))}
}
