// Package nodes is `winkube nodes`: emulated nodes joined to an existing cluster.
package nodes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/discovery"
	restclient "k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/cluster"
	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/cmd/winkube/internal/kubeflags"
	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/node"
)

type flags struct {
	cluster kubeflags.Flags
	config  string
	timeout time.Duration
	images  registry.Flags
	// unknownImages is --image-resolution.
	unknownImages string
	kubelet       kubeletFlags
	shard         shardFlags
}

// NewCommand returns `winkube nodes`.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	f := &flags{}
	c := &cobra.Command{
		Use:   "nodes",
		Short: "Join emulated Linux and Windows nodes to an existing cluster until Ctrl-C",
		Long: "Registers the node pools of the cluster config (default: 1 Linux, 2 Windows Server 2019, " +
			"1 Windows Server 2022 node) with the cluster of --kubeconfig (default $KUBECONFIG) and runs them like kubelets " +
			"until Ctrl-C. Each node serves the kubelet API (logs, exec, port-forward, stats) on its own port of " +
			"--kubelet-address, which the cluster's API server must reach. The nodes stay in the cluster afterwards, " +
			"as real ones do when their kubelet stops.",
		Example: "  winkube nodes --kubeconfig ~/.kube/config --config pools.yaml\n" +
			"  winkube nodes --kubeconfig kind.kubeconfig --kubelet-address 172.18.0.1 --approve-csr\n" +
			"  winkube nodes --kubeconfig kind.kubeconfig --config pools.yaml --shards 4   # on each replica: they split the nodes",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return run(c.Context(), streams, f)
		},
	}
	f.cluster.AddJoinFlags(c.Flags(), "kubeconfig of the cluster to join (default $KUBECONFIG; one of them is required)")
	c.Flags().StringVar(&f.config, "config", "", "cluster config file whose nodePools to run (default: the default pools)")
	c.Flags().DurationVar(&f.timeout, "wait", 2*time.Minute, "how long to wait for the nodes to be Ready")
	f.images.AddFlags(c.Flags(), registry.ModeCatalog)
	c.Flags().StringVar(&f.unknownImages, "image-resolution", node.UnknownImagesUnverified, "what a pull does with an image neither the catalog nor a registry can answer for: unverified (run it where it landed, with a Warning event) or strict (fail the pull, as an unreachable registry does)")
	f.kubelet.addFlags(c.Flags())
	f.shard.addFlags(c.Flags())
	c.AddCommand(newInstallCommand(streams), newUninstallCommand(streams))
	return c
}

func run(ctx context.Context, streams cmd.IOStreams, f *flags) error {
	rest, err := f.cluster.RESTConfig()
	if errors.Is(err, kubeflags.ErrNotNamed) {
		return &cmd.ExitError{Code: 2, Err: err}
	}
	if err != nil {
		return err
	}
	source := f.cluster.Source()
	// The nodes join a cluster with no data dir here: they read the
	// image facts of the default one, as lint does.
	f.images.DataDir, _ = datadir.Resolve("")
	images, err := f.images.Resolver()
	if err != nil {
		return &cmd.ExitError{Code: 2, Err: err}
	}
	if err := node.CheckUnknownImages(f.unknownImages); err != nil {
		return &cmd.ExitError{Code: 2, Err: err}
	}
	if err := f.kubelet.validate(); err != nil {
		return &cmd.ExitError{Code: 2, Err: err}
	}
	if err := f.shard.validate(); err != nil {
		return &cmd.ExitError{Code: 2, Err: err}
	}
	cfg, err := v1alpha1.Load(f.config)
	if err != nil {
		return err
	}
	if err := reachable(rest); err != nil {
		return fmt.Errorf("cannot reach the cluster at %s (%s): %w", rest.Host, source, err)
	}
	serving, err := f.kubelet.serving(rest, source, cfg.NodeCount())
	if err != nil {
		return err
	}
	if f.shard.enabled() {
		return runSharded(ctx, streams, f, cfg, rest, serving, images)
	}
	start := time.Now()
	fmt.Fprintf(streams.Out, "Joining %d nodes to %s\n", cfg.NodeCount(), rest.Host)
	agent, err := cluster.Join(ctx, f.joinOptions(rest, cfg, serving, images, streams.Out))
	if err != nil {
		return f.kubelet.joinError(err)
	}
	defer agent.Close()
	select {
	case <-agent.Ready():
		fmt.Fprintf(streams.Out, "%d nodes Ready in %s. Press Ctrl-C to stop them.\n", cfg.NodeCount(), time.Since(start).Round(100*time.Millisecond))
	case <-ctx.Done():
		fmt.Fprintln(streams.Out, "Stopping the nodes.")
		return nil
	case <-time.After(f.timeout):
		return notReadyError(f.timeout, agent.NotReady())
	}
	// The agent retries failing API calls and reports them itself; it runs
	// until Ctrl-C.
	<-ctx.Done()
	fmt.Fprintln(streams.Out, "Stopping the nodes.")
	return nil
}

// joinOptions are the join of every node, or of a shard's (Nodes set by
// the caller).
func (f *flags) joinOptions(rest *restclient.Config, cfg *v1alpha1.Cluster, serving *node.KubeletServing, images imageinfo.Resolver, out io.Writer) cluster.JoinOptions {
	return cluster.JoinOptions{Config: rest, Cluster: cfg, Kubelet: serving, Images: images, UnknownImages: f.unknownImages,
		ApproveCSR: f.kubelet.approveCSR, Progress: out}
}

// notReadyError names the nodes that are not Ready and why.
func notReadyError(timeout time.Duration, notReady []string) error {
	return fmt.Errorf("the nodes did not become Ready within %s (raise --wait):\n  %s", timeout, strings.Join(notReady, "\n  "))
}

// reachable asks the API server for its version, so that a cluster that is
// down or a wrong kubeconfig fails once, before any node registers.
func reachable(cfg *restclient.Config) error {
	cfg = restclient.CopyConfig(cfg)
	cfg.Timeout = 10 * time.Second
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	_, err = dc.ServerVersion()
	return err
}
