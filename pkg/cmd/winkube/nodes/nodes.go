// Package nodes is `winkube nodes`: emulated nodes joined to an existing cluster.
package nodes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/discovery"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/cluster"
	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/node"
)

type flags struct {
	kubeconfig string
	context    string
	config     string
	timeout    time.Duration
	images     registry.Flags
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
	c.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster to join (default $KUBECONFIG; one of them is required)")
	c.Flags().StringVar(&f.context, "context", "", "kubeconfig context to use (default: the current context)")
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
	rules, source, err := loadingRules(f.kubeconfig)
	if err != nil {
		return &cmd.ExitError{Code: 2, Err: err}
	}
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
	rest, err := restConfig(rules, f.context)
	if err != nil {
		return fmt.Errorf("reading %s: %w", source, err)
	}
	if err := reachable(rest); err != nil {
		return fmt.Errorf("cannot reach the cluster at %s (%s): %w", rest.Host, source, err)
	}
	serving, err := f.kubelet.serving(rest.Host, cfg.NodeCount())
	if err != nil {
		return err
	}
	if f.shard.enabled() {
		return runSharded(ctx, streams, f, cfg, rest, serving, images)
	}
	start := time.Now()
	fmt.Fprintf(streams.Out, "Joining %d nodes to %s\n", cfg.NodeCount(), rest.Host)
	agent, err := node.Start(ctx, node.Options{Config: cluster.AgentConfig(rest), Cluster: cfg, Progress: streams.Out, Images: images, Kubelet: serving, UnknownImages: f.unknownImages})
	if err != nil {
		return fmt.Errorf("starting the emulated nodes: %w", f.kubelet.listenError(err))
	}
	defer agent.Close()
	printEndpoints(streams.Out, agent)
	if err := f.kubelet.checkReachable(ctx, streams.Out, agent); err != nil {
		agent.Close()
		if removed := agent.RemoveNodesSince(context.WithoutCancel(ctx), start); len(removed) > 0 {
			fmt.Fprintf(streams.Out, "Removed the nodes that registered: %s\n", strings.Join(removed, ", "))
		}
		return err
	}
	if err := f.kubelet.requestCerts(ctx, streams.Out, agent); err != nil {
		return err
	}
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

// printEndpoints says where the nodes' kubelet API listens: per node for
// a few nodes, as a port range for many.
func printEndpoints(out io.Writer, agent *node.Agent) {
	eps := agent.KubeletEndpoints()
	names := agent.NodeNames()
	if len(eps) == 0 {
		return
	}
	if len(names) > 10 {
		lo, hi := eps[names[0]], eps[names[len(names)-1]]
		fmt.Fprintf(out, "Kubelet API of %d nodes on %s, ports %d (%s) to %d (%s)\n", len(names), lo.Addr(), lo.Port(), names[0], hi.Port(), names[len(names)-1])
		return
	}
	for _, name := range names {
		fmt.Fprintf(out, "  node %s: kubelet API on %s\n", name, eps[name])
	}
}

// loadingRules picks the kubeconfig as kubectl does: --kubeconfig, else
// the files of $KUBECONFIG (merged). Unlike kubectl there is no fallback to
// ~/.kube/config: joining nodes to a cluster nobody named would be a
// surprise. source names where the kubeconfig came from, for errors.
func loadingRules(flag string) (*clientcmd.ClientConfigLoadingRules, string, error) {
	if flag != "" {
		return &clientcmd.ClientConfigLoadingRules{ExplicitPath: flag}, "--kubeconfig " + flag, nil
	}
	env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar)
	if env == "" && inPod() {
		// The agent installed in the cluster (`winkube nodes install`, the
		// chart) joins the cluster it runs in, as its service account.
		return nil, "the pod's service account (in-cluster config)", nil
	}
	if env == "" {
		return nil, "", errors.New("no cluster to join: set --kubeconfig or $KUBECONFIG")
	}
	return &clientcmd.ClientConfigLoadingRules{Precedence: filepath.SplitList(env)}, "$KUBECONFIG " + env, nil
}

// inPod reports whether this process runs in a Kubernetes pod, which the
// kubelet tells by the API server's service variables.
func inPod() bool {
	return os.Getenv("KUBERNETES_SERVICE_HOST") != "" && os.Getenv("KUBERNETES_SERVICE_PORT") != ""
}

// restConfig reads the kubeconfig of rules, or the pod's in-cluster
// config when rules is nil (see loadingRules).
func restConfig(rules *clientcmd.ClientConfigLoadingRules, context string) (*restclient.Config, error) {
	if rules == nil {
		return restclient.InClusterConfig()
	}
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		rules, &clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
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
