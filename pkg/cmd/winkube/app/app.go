// Package app builds the winkube command tree and runs it.
package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/cmd/winkube/component"
	"github.com/winkube/winkube/pkg/cmd/winkube/describe"
	"github.com/winkube/winkube/pkg/cmd/winkube/doctor"
	"github.com/winkube/winkube/pkg/cmd/winkube/down"
	"github.com/winkube/winkube/pkg/cmd/winkube/gmsa"
	"github.com/winkube/winkube/pkg/cmd/winkube/image"
	"github.com/winkube/winkube/pkg/cmd/winkube/kubeconfig"
	"github.com/winkube/winkube/pkg/cmd/winkube/lint"
	"github.com/winkube/winkube/pkg/cmd/winkube/list"
	"github.com/winkube/winkube/pkg/cmd/winkube/net"
	"github.com/winkube/winkube/pkg/cmd/winkube/nodes"
	"github.com/winkube/winkube/pkg/cmd/winkube/plan"
	"github.com/winkube/winkube/pkg/cmd/winkube/status"
	"github.com/winkube/winkube/pkg/cmd/winkube/stop"
	"github.com/winkube/winkube/pkg/cmd/winkube/up"
	"github.com/winkube/winkube/pkg/cmd/winkube/version"
	"github.com/winkube/winkube/pkg/cmd/winkube/webhook"
)

// Run executes winkube with args and returns the process exit code:
// 0 on success, the code of an ExitError, 1 for other errors.
func Run(ctx context.Context, streams cmd.IOStreams, args []string) int {
	root := NewCommand(streams)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var exit *cmd.ExitError
	if errors.As(err, &exit) {
		if exit.Err != nil {
			fmt.Fprintln(streams.ErrOut, "winkube: "+exit.Err.Error())
		}
		return exit.Code
	}
	fmt.Fprintln(streams.ErrOut, "winkube: "+err.Error())
	return 1
}

// NewCommand returns the root command with every subcommand.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "winkube",
		Short: "Run, test and check Kubernetes clusters with Windows nodes",
		Long: "winkube runs a mixed Linux/Windows Kubernetes cluster on one Linux machine " +
			"(the real control plane plus emulated Windows Server and Linux nodes), joins the same " +
			"emulated nodes to an existing cluster, checks manifests against the Windows rule book, " +
			"answers Windows networking questions from a model of HNS and kube-proxy, audits live " +
			"clusters, and plans the join of real Windows nodes.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &cmd.ExitError{Code: 2, Err: fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())}
	})
	// Upstream packages register flags such as --version on the global flag
	// set, which cobra adds to the root; they mean nothing for winkube.
	pflag.CommandLine.VisitAll(func(f *pflag.Flag) { f.Hidden = true })
	// winkube's own --version, defined before cobra merges the global set
	// (which then keeps this one), prints what `winkube version` does. It
	// is persistent, so `winkube up --version` prints the version too
	// instead of starting a cluster.
	root.Version = version.Line()
	root.SetVersionTemplate("{{.Version}}\n")
	root.PersistentFlags().Bool("version", false, "print the winkube version and exit")
	addPprofFlag(root)
	pprofHook := root.PersistentPreRunE
	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		if v, _ := c.Flags().GetBool("version"); v {
			fmt.Fprintln(streams.Out, version.Line())
			return &cmd.ExitError{Code: 0}
		}
		return pprofHook(c, args)
	}
	for _, sub := range subcommands(streams) {
		root.AddCommand(sub)
	}
	versionBeforeArgs(root)
	return root
}

// versionBeforeArgs lets --version through every command's argument check
// (cobra checks arguments before the hook that prints the version), so
// `winkube net check --version` prints it instead of a usage error.
func versionBeforeArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(c *cobra.Command, args []string) error {
			if v, _ := c.Flags().GetBool("version"); v {
				return nil
			}
			return check(c, args)
		}
	}
	for _, sub := range c.Commands() {
		versionBeforeArgs(sub)
	}
}

func subcommands(streams cmd.IOStreams) []*cobra.Command {
	return []*cobra.Command{
		up.NewCommand(streams),
		plan.NewCommand(streams),
		down.NewCommand(streams),
		list.NewCommand(streams),
		status.NewCommand(streams),
		stop.NewCommand(streams),
		kubeconfig.NewCommand(streams),
		nodes.NewCommand(streams),
		describe.NewCommand(streams),
		lint.NewCommand(streams),
		image.NewCommand(streams),
		doctor.NewCommand(streams),
		webhook.NewCommand(streams),
		gmsa.NewCommand(streams),
		net.NewCommand(streams),
		version.NewCommand(streams),
		component.NewCommand(streams),
	}
}
