package nodes

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/cmd/winkube/internal/kubeflags"
	"github.com/winkube/winkube/pkg/cmd/winkube/version"
	"github.com/winkube/winkube/pkg/nodes/install"
	"github.com/winkube/winkube/pkg/webhook"
)

type installFlags struct {
	cluster    kubeflags.Flags
	namespace  string
	image      string
	config     string
	replicas   int32
	approveCSR bool
	dryRun     bool
}

func newInstallCommand(streams cmd.IOStreams) *cobra.Command {
	f := &installFlags{}
	c := &cobra.Command{
		Use:   "install",
		Short: "Run the emulated nodes' agent in the cluster itself (what the winkube-nodes Helm chart installs)",
		Long: "Applies the objects of the winkube-nodes chart (deploy/helm/winkube-nodes, built into winkube): a " +
			"namespace, a service account with a kubelet's permissions, a ConfigMap with the node pools of --config, " +
			"and a Deployment running `winkube nodes` on a Linux node that it does not emulate. The agent joins the " +
			"cluster it runs in with its service account and serves the nodes' kubelet API on the pod's IP.\n\n" +
			"The image must be one the cluster can pull: build it with `go run ./hack/image -o winkube.tar` and load it " +
			"with `kind load image-archive winkube.tar`. Running install again updates the objects.",
		Example: "  winkube nodes install --kubeconfig kind.kubeconfig --config pools.yaml\n" +
			"  winkube nodes install --dry-run > winkube-nodes.yaml",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runInstall(c.Context(), streams, f)
		},
	}
	fs := c.Flags()
	f.cluster.AddJoinFlags(fs, "kubeconfig of the cluster to install into (default $KUBECONFIG; one of them is required)")
	fs.StringVarP(&f.namespace, "namespace", "n", install.DefaultNamespace, "namespace of the agent's Deployment, service account and ConfigMap")
	fs.StringVar(&f.image, "image", webhook.ImageRepository+":"+version.Winkube(), "winkube image the Deployment runs, REPOSITORY[:TAG] (its entrypoint is winkube)")
	fs.StringVar(&f.config, "config", "", "cluster config file whose nodePools the agent runs (default: the chart's pools, winkube's default ones)")
	fs.Int32Var(&f.replicas, "replicas", install.DefaultReplicas, "agent replicas; each runs every pool unless the agents are sharded")
	fs.BoolVar(&f.approveCSR, "approve-csr", false, "let the agent approve its nodes' kubelet-serving certificate requests")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the objects as YAML instead of applying them (needs no cluster)")
	return c
}

// options checks the flags; its errors are usage errors.
func (f *installFlags) options() (install.Options, error) {
	if f.replicas < 1 {
		return install.Options{}, fmt.Errorf("--replicas %d: want at least 1", f.replicas)
	}
	pools, err := install.LoadPools(f.config)
	if err != nil {
		return install.Options{}, err
	}
	return install.Options{Namespace: f.namespace, Image: f.image, Pools: pools, Replicas: f.replicas, ApproveCSR: f.approveCSR}, nil
}

func runInstall(ctx context.Context, streams cmd.IOStreams, f *installFlags) error {
	o, err := f.options()
	if err != nil {
		return &cmd.ExitError{Code: 2, Err: err}
	}
	if f.dryRun {
		objs, err := install.Objects(o)
		if err != nil {
			return &cmd.ExitError{Code: 2, Err: err}
		}
		return install.YAML(streams.Out, objs)
	}
	client, host, err := installClient(&f.cluster, streams)
	if err != nil {
		return err
	}
	fmt.Fprintf(streams.Out, "Installing the winkube node agent (%s) in namespace %s of %s:\n", o.Image, o.Namespace, host)
	if _, err := client.Install(ctx, o); err != nil {
		return fmt.Errorf("installing the node agent (check --kubeconfig and your permissions): %w", err)
	}
	fmt.Fprintf(streams.Out, "Installed. Wait for it: kubectl -n %s rollout status deployment/%s\n"+
		"Its nodes: kubectl get nodes -l winkube.io/pool\n", o.Namespace, install.Name)
	return nil
}

// installClient connects to the cluster of --kubeconfig or $KUBECONFIG,
// as `winkube nodes` does.
func installClient(cluster *kubeflags.Flags, streams cmd.IOStreams) (*install.Client, string, error) {
	rest, err := cluster.RESTConfig()
	if errors.Is(err, kubeflags.ErrNotNamed) {
		return nil, "", &cmd.ExitError{Code: 2, Err: err}
	}
	if err != nil {
		return nil, "", err
	}
	client, err := install.NewClient(rest, streams.Out)
	return client, rest.Host, err
}

func newUninstallCommand(streams cmd.IOStreams) *cobra.Command {
	var cluster kubeflags.Flags
	c := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove what `winkube nodes install` applied",
		Long: "Deletes the agent's Deployment, ConfigMap, RBAC and service account, and its namespace when install " +
			"created it. A `helm install` of the chart is left to `helm uninstall`. The nodes the agent registered " +
			"stay, NotReady, as nodes do when their kubelet stops; delete them with kubectl delete nodes -l winkube.io/pool.",
		Example: "  winkube nodes uninstall --kubeconfig kind.kubeconfig",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			client, host, err := installClient(&cluster, streams)
			if err != nil {
				return err
			}
			fmt.Fprintf(streams.Out, "Removing the winkube node agent from %s:\n", host)
			removed, err := client.Uninstall(c.Context(), "")
			if err != nil {
				return fmt.Errorf("uninstalling the node agent: %w", err)
			}
			if len(removed) == 0 {
				fmt.Fprintln(streams.Out, "Nothing to remove: no agent installed by winkube nodes install.")
			}
			return nil
		},
	}
	cluster.AddJoinFlags(c.Flags(), "kubeconfig of the cluster (default $KUBECONFIG; one of them is required)")
	return c
}
