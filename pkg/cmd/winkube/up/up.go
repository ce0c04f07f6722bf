// Package up is `winkube up`: the real control plane plus emulated nodes on
// this machine, running until Ctrl-C.
package up

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cluster"
	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/node"
	"github.com/winkube/winkube/pkg/supervise"
)

type flags struct {
	config  string
	name    string
	dataDir string
	port    int
	apply   []string
	timeout time.Duration
	webhook bool
	gmsa    bool
	images  registry.Flags
	// unknownImages is --image-resolution.
	unknownImages string
	// detach starts the cluster in the background; readyFD is set in that
	// background process (hidden --ready-fd), which says on it when the
	// cluster is ready.
	detach  bool
	readyFD int
	merge   bool
	// named: the cluster has an identity (--name, or the default data
	// dir), so it is registered under ~/.winkube and, by default, merged
	// into the user's kubeconfig. A --data-dir alone is a scratch cluster.
	named bool
}

// NewCommand returns `winkube up`.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	f := &flags{}
	c := &cobra.Command{
		Use:   "up",
		Short: "Run a mixed Linux/Windows cluster on this machine until Ctrl-C",
		Long: "Starts etcd, kube-apiserver, kube-scheduler and kube-controller-manager (upstream " +
			"Kubernetes) on loopback, then the emulated Linux and Windows Server nodes of the cluster " +
			"config (default: 1 Linux node, 2 Windows Server 2019 nodes, 1 Windows Server 2022 node). " +
			"State lives in the data dir, so the next `winkube up` resumes the same cluster.",
		Example: "  winkube up\n  winkube up --config cluster.yaml --apply examples/windows-web-server.yaml\n  winkube up --webhook\n  winkube up --gmsa --apply examples/gmsa.yaml\n" +
			"  winkube up --detach --name dev   # in the background; winkube stop dev / winkube down dev",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			f.settle(c.Flags())
			if f.detach && f.readyFD == 0 {
				return runDetached(c.Context(), streams, c.Flags(), f)
			}
			return run(c.Context(), streams, f)
		},
	}
	c.Flags().StringVar(&f.name, "name", datadir.DefaultName, "cluster name: its data dir is ~/.winkube/NAME (~/.winkube/default for winkube) and its kubeconfig context winkube-NAME")
	c.Flags().BoolVarP(&f.detach, "detach", "d", false, "start the cluster in the background and return once it is ready (output in <data-dir>/winkube.log; winkube stop NAME stops it)")
	c.Flags().BoolVar(&f.merge, "kubeconfig-merge", true, "merge the cluster into $KUBECONFIG's first file or ~/.kube/config as context winkube-NAME and make it current (default false for a --data-dir without --name)")
	c.Flags().IntVar(&f.readyFD, "ready-fd", 0, "descriptor on which a background start says it is ready (set by --detach)")
	_ = c.Flags().MarkHidden("ready-fd")
	c.Flags().StringVar(&f.config, "config", "", "cluster config file (kind: Cluster); default: the saved config of the data dir, else the default cluster")
	c.Flags().StringVar(&f.dataDir, "data-dir", "", "where the cluster's state lives (default ~/.winkube/NAME)")
	c.Flags().IntVar(&f.port, "port", 6443, "loopback port of kube-apiserver")
	c.Flags().StringArrayVar(&f.apply, "apply", nil, "manifest file or directory to apply once the cluster is ready (repeatable); prints where the pods landed")
	c.Flags().BoolVar(&f.webhook, "webhook", false, "run the winkube admission webhook in-process and register it, so pods without selectors land on nodes that can run their images")
	c.Flags().BoolVar(&f.gmsa, "gmsa", false, "install the GMSACredentialSpec CRD and run the windows-gmsa admission webhook in-process (resolves gmsaCredentialSpecName; refuses specs the pod's service account may not `use`)")
	f.images.AddFlags(c.Flags(), registry.ModeCatalog)
	c.Flags().StringVar(&f.unknownImages, "image-resolution", node.UnknownImagesUnverified, "what a pull does with an image neither the catalog nor a registry can answer for: unverified (run it where it landed, with a Warning event) or strict (fail the pull, as an unreachable registry does)")
	c.Flags().DurationVar(&f.timeout, "wait", 3*time.Minute, "how long to wait for the cluster and applied pods to be ready")
	return c
}

func run(ctx context.Context, streams cmd.IOStreams, f *flags) error {
	supervise.Inherit(f.readyFD)
	opts, err := f.options(streams.Out)
	if err != nil {
		return err
	}
	cl, err := cluster.Up(ctx, opts)
	var input *cluster.InputError
	if errors.As(err, &input) {
		return &cmd.ExitError{Code: 2, Err: err}
	}
	if err != nil {
		return err
	}
	f.register(streams, cl)
	if err := cl.ApplyAndReport(ctx, f.timeout); err != nil {
		cl.Stop()
		if ctx.Err() != nil {
			return nil // Ctrl-C while the pods settle: a normal stop
		}
		return err
	}
	if f.readyFD != 0 {
		if err := supervise.Ready(f.readyFD); err != nil {
			fmt.Fprintln(streams.Out, "Warning:", err)
		}
	} else {
		fmt.Fprintln(streams.Out, "The cluster is running. Press Ctrl-C to stop it (state is kept; `winkube down` deletes it).")
	}
	return cl.Wait(ctx)
}

// options checks the flags and turns them into cluster.Options.
func (f *flags) options(out io.Writer) (cluster.Options, error) {
	if err := f.validate(); err != nil {
		return cluster.Options{}, &cmd.ExitError{Code: 2, Err: err}
	}
	dir, err := f.resolveDir()
	if err != nil {
		return cluster.Options{}, &cmd.ExitError{Code: 2, Err: err}
	}
	// The image facts of the cluster's data dir: imported ones, the
	// config's images section (which Up stores there) and kept registry
	// answers.
	f.images.DataDir = dir
	images, err := f.images.Resolver()
	if err != nil {
		return cluster.Options{}, &cmd.ExitError{Code: 2, Err: err}
	}
	if err := node.CheckUnknownImages(f.unknownImages); err != nil {
		return cluster.Options{}, &cmd.ExitError{Code: 2, Err: err}
	}
	return cluster.Options{
		Images:        images,
		UnknownImages: f.unknownImages,
		ConfigFile:    f.config,
		DataDir:       dir,
		Name:          f.name,
		Port:          f.port,
		Timeout:       f.timeout,
		Out:           out,
		Webhook:       f.webhook,
		GMSA:          f.gmsa,
		Apply:         f.apply,
	}, nil
}

// validate checks the flags cobra cannot, before anything starts.
func (f *flags) validate() error {
	if f.port < 0 || f.port > 65535 {
		return fmt.Errorf("--port %d: want a TCP port from 1 to 65535, or 0 to pick a free one", f.port)
	}
	if f.timeout <= 0 {
		return fmt.Errorf("--wait %s: want a positive duration such as 3m", f.timeout)
	}
	if err := datadir.CheckName(f.name); err != nil {
		return fmt.Errorf("--name: %w", err)
	}
	return nil
}
