// Package net is `winkube net`: reachability checks and HNS state from the
// network model of a live cluster.
package net

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/cmd/winkube/internal/kubeflags"
	"github.com/winkube/winkube/pkg/network"
	"github.com/winkube/winkube/pkg/network/reach"
)

type flags struct {
	cluster kubeflags.Flags
	output  string
}

// NewCommand returns `winkube net` with its subcommands.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	f := &flags{}
	c := &cobra.Command{
		Use:   "net",
		Short: "Ask the Windows network model: can this reach that, and what HNS holds on a node",
		Long: "winkube net reads a cluster's nodes, pods, Services, EndpointSlices, the flannel ConfigMap and the " +
			"Windows kube-proxy DaemonSet, computes what flannel, the CNI plugins and kube-proxy (winkernel) " +
			"program on every Windows node, and answers from that model. Nothing is sent on the network.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	f.cluster.AddFlags(c.PersistentFlags())
	c.PersistentFlags().StringVarP(&f.output, "output", "o", "text", "output format: text or json")
	c.AddCommand(newCheckCommand(streams, f), newMatrixCommand(streams, f), newHNSCommand(streams, f))
	return c
}

// load reads the cluster and builds the model and a checker over it.
func (f *flags) load(ctx context.Context) (*network.Model, *reach.Checker, error) {
	if f.output != "text" && f.output != "json" {
		return nil, nil, usage("--output %q: want text or json", f.output)
	}
	client, err := f.cluster.Client()
	if err != nil {
		return nil, nil, &cmd.ExitError{Code: 2, Err: err}
	}
	snap, err := network.Read(ctx, client)
	if err != nil {
		return nil, nil, &cmd.ExitError{Code: 2, Err: f.cluster.Explain(err)}
	}
	m := network.Build(snap)
	return m, reach.New(m, reach.ClusterDNS(snap, m.Cluster.ClusterDomain)), nil
}

// print writes v as JSON, or with its own text form.
func (f *flags) print(w io.Writer, v interface{ WriteText(io.Writer) error }) error {
	if f.output == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	return v.WriteText(w)
}

func usage(format string, args ...any) error {
	return &cmd.ExitError{Code: 2, Err: fmt.Errorf(format, args...)}
}

// inputError turns the checker's input errors into exit code 2.
func inputError(err error) error {
	var in *reach.InputError
	if errors.As(err, &in) {
		return &cmd.ExitError{Code: 2, Err: err}
	}
	return err
}
