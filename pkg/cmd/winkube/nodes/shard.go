package nodes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/cluster"
	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/node"
	"github.com/winkube/winkube/pkg/shard"
)

// shardGroup prefixes the Leases of `winkube nodes` replicas.
const shardGroup = "winkube-nodes"

// shardFlags let several replicas split the nodes (pkg/shard). Without
// --shards there are no Leases and one process runs every node, as before.
type shardFlags struct {
	shards    int
	namespace string
	identity  string
	lease     time.Duration
	renew     time.Duration
	retry     time.Duration
	fs        *pflag.FlagSet
}

func (s *shardFlags) addFlags(fs *pflag.FlagSet) {
	s.fs = fs
	// The defaults are kube-controller-manager's leader election ones.
	fs.IntVar(&s.shards, "shards", 1, "split the nodes into this many shards, each run by one of the replicas started with the same --shards and --config "+
		"(a coordination.k8s.io Lease per shard; given at all, even 1, the replicas coordinate)")
	fs.StringVar(&s.namespace, "shard-namespace", "kube-node-lease", "namespace of the shard Leases (with --shards)")
	fs.StringVar(&s.identity, "identity", "", "this replica's name in the shard Leases, unique among the replicas (with --shards; default: host name and a random suffix)")
	fs.DurationVar(&s.lease, "lease-duration", 15*time.Second, "how long another replica waits before taking the shards of a replica that stopped renewing (with --shards)")
	fs.DurationVar(&s.renew, "renew-deadline", 10*time.Second, "how long a replica retries renewing a shard before it stops that shard's nodes; shorter than --lease-duration (with --shards)")
	fs.DurationVar(&s.retry, "retry-period", 2*time.Second, "how often a replica renews and looks for free shards (with --shards)")
}

// enabled says whether --shards was given.
func (s *shardFlags) enabled() bool { return s.fs != nil && s.fs.Changed("shards") }

// validate checks the flags; its errors are usage errors.
func (s *shardFlags) validate() error {
	if !s.enabled() {
		for _, name := range []string{"shard-namespace", "identity", "lease-duration", "renew-deadline", "retry-period"} {
			if s.fs != nil && s.fs.Changed(name) {
				return fmt.Errorf("--%s needs --shards", name)
			}
		}
		return nil
	}
	switch {
	case s.shards < 1:
		return fmt.Errorf("--shards %d: must be at least 1", s.shards)
	case s.lease < time.Second:
		return fmt.Errorf("--lease-duration %s: must be at least 1s", s.lease)
	case s.renew <= 0 || s.renew >= s.lease:
		return fmt.Errorf("--renew-deadline %s: must be positive and shorter than --lease-duration %s", s.renew, s.lease)
	case s.retry <= 0 || s.retry >= s.renew:
		return fmt.Errorf("--retry-period %s: must be positive and shorter than --renew-deadline %s", s.retry, s.renew)
	}
	if errs := validation.IsDNS1123Label(s.namespace); len(errs) > 0 {
		return fmt.Errorf("--shard-namespace %q: %s", s.namespace, strings.Join(errs, "; "))
	}
	if s.identity == "" {
		s.identity = defaultIdentity()
	}
	if errs := validation.IsDNS1123Label(s.identity); len(errs) > 0 {
		return fmt.Errorf("--identity %q: %s", s.identity, strings.Join(errs, "; "))
	}
	return nil
}

// defaultIdentity is the host name made a DNS label, and a random suffix
// so that two replicas on one host differ.
func defaultIdentity() string {
	host, _ := os.Hostname()
	host = strings.Trim(regexp.MustCompile(`[^a-z0-9-]+`).ReplaceAllString(strings.ToLower(host), "-"), "-")
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	if len(host) > 50 {
		host = strings.TrimRight(host[:50], "-")
	}
	if host == "" {
		host = "replica"
	}
	return host + "-" + hex.EncodeToString(b)
}

// sharded is one replica of `winkube nodes --shards`: one node agent per
// shard it holds, each with that shard's nodes only.
type sharded struct {
	f       *flags
	cfg     *v1alpha1.Cluster
	rest    *restclient.Config
	serving *node.KubeletServing
	images  imageinfo.Resolver
	out     io.Writer
	names   []string   // every node, in name order (the kubelet port order)
	blocks  [][]string // the nodes of each shard
}

func runSharded(ctx context.Context, streams cmd.IOStreams, f *flags, cfg *v1alpha1.Cluster, rest *restclient.Config,
	serving *node.KubeletServing, images imageinfo.Resolver) error {
	s := &sharded{f: f, cfg: cfg, rest: rest, serving: serving, images: images, out: &lockedWriter{w: streams.Out}}
	for _, n := range cfg.Nodes() {
		s.names = append(s.names, n.Name)
	}
	sort.Strings(s.names)
	if f.shard.shards > len(s.names) {
		return &cmd.ExitError{Code: 2, Err: fmt.Errorf("--shards %d: the config has only %d nodes", f.shard.shards, len(s.names))}
	}
	s.blocks = shard.Split(s.names, f.shard.shards)
	client, err := kubernetes.NewForConfig(shard.ClientConfig(rest, f.shard.shards, f.shard.retry))
	if err != nil {
		return err
	}
	if err := shard.CanWriteLeases(ctx, client, f.shard.namespace, shardGroup); err != nil {
		return fmt.Errorf("--shard-namespace %s: cannot create Leases there: %w", f.shard.namespace, err)
	}
	o := shard.Options{
		Client: client, Namespace: f.shard.namespace, Group: shardGroup, Identity: f.shard.identity,
		Shards: f.shard.shards, LeaseDuration: f.shard.lease, RenewDeadline: f.shard.renew, RetryPeriod: f.shard.retry,
		ReleaseOnCancel: true, Start: s.start, Progress: s.out,
	}
	for i, b := range s.blocks {
		o.Layout = append(o.Layout, shard.Fingerprint(i, len(s.blocks), b))
	}
	fmt.Fprintf(s.out, "Replica %s: running its share of %d nodes in %d shards (Leases in namespace %s) against %s\n",
		o.Identity, len(s.names), o.Shards, o.Namespace, rest.Host)
	err = shard.Run(ctx, o)
	fmt.Fprintln(s.out, "Stopping the nodes.")
	return err
}

// start runs shard i: a node agent for its nodes, on the kubelet ports
// they have whichever replica runs them (the port of the node's position
// in name order).
func (s *sharded) start(ctx context.Context, i int) (io.Closer, error) {
	nodes := map[string]bool{}
	for _, n := range s.blocks[i] {
		nodes[n] = true
	}
	serving := *s.serving
	if serving.Port > 0 {
		serving.Port += shard.Offset(len(s.names), len(s.blocks), i)
	}
	began := time.Now()
	o := s.f.joinOptions(s.rest, s.cfg, &serving, s.images, s.out)
	o.Nodes = func(name string) bool { return nodes[name] }
	agent, err := cluster.Join(ctx, o)
	if err != nil {
		return nil, s.f.kubelet.joinError(err)
	}
	r := &runningShard{agent: agent, stopped: make(chan struct{})}
	go r.sayReady(s.out, fmt.Sprintf("shard %d/%d", i, len(s.blocks)), began, s.f.timeout)
	return r, nil
}

// runningShard is a shard's agent, as pkg/shard closes it.
type runningShard struct {
	agent   *node.Agent
	stopped chan struct{}
	once    sync.Once
}

func (r *runningShard) Close() error {
	r.once.Do(func() { close(r.stopped) })
	return r.agent.Close()
}

// sayReady says when the shard's nodes are Ready, or which are not after
// timeout; either way the shard keeps running.
func (r *runningShard) sayReady(out io.Writer, shard string, began time.Time, timeout time.Duration) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-r.agent.Ready():
		fmt.Fprintf(out, "%s: %d nodes Ready in %s.\n", shard, len(r.agent.NodeNames()), time.Since(began).Round(100*time.Millisecond))
	case <-t.C:
		fmt.Fprintf(out, "%s: %v\n", shard, notReadyError(timeout, r.agent.NotReady()))
	case <-r.stopped:
	}
}

// lockedWriter keeps the lines of concurrent shards whole.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
