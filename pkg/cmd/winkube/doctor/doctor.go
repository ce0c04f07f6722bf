// Package doctor is `winkube doctor`.
package doctor

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/cmd/winkube/internal/kubeflags"
	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/doctor"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/rules"
)

// Exit codes, as winkube lint's.
const (
	ExitFindings = 1
	ExitUsage    = 2
)

type flagpole struct {
	Cluster kubeflags.Flags
	Output  string
	FailOn  string
}

// NewCommand returns `winkube doctor`.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	flags := &flagpole{}
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Audit a live cluster with Windows nodes for the known troubleshooting cases",
		Long: "winkube doctor reads a live cluster through its API (nodes and their leases, kube-system DaemonSets\n" +
			"and ConfigMaps, pods and their events) and reports, per rule of the rule book, what is wrong: nodes\n" +
			"or node agents missing (TS-1), kube-proxy flags (TS-5, KP-1, KP-8), flannel (TS-7, TS-8, NET-2),\n" +
			"pause images (TS-11), DNS names (TS-12), and workloads on nodes their images cannot run on (SCH-5,\n" +
			"IMG-2, IMG-4). Checks only the node can answer print the PowerShell to run there (info).\n\n" +
			"Exit status: 0 when nothing reaches --fail-on, 1 when something does, 2 for usage errors or when\n" +
			"the cluster cannot be read.",
		Example:       "  winkube doctor\n  winkube doctor --kubeconfig ~/.kube/config -o json --fail-on warning",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, _ []string) error {
			return run(c, streams, flags)
		},
	}
	f := c.Flags()
	flags.Cluster.AddFlags(f)
	f.StringVarP(&flags.Output, "output", "o", "text", "report format: text or json")
	f.StringVar(&flags.FailOn, "fail-on", "error", "least severity that makes the exit status 1: error, warning, info or none")
	return c
}

func run(c *cobra.Command, streams cmd.IOStreams, flags *flagpole) error {
	threshold, err := rules.ParseSeverity(flags.FailOn)
	if err != nil {
		return &cmd.ExitError{Code: ExitUsage, Err: fmt.Errorf("--fail-on: %w", err)}
	}
	if flags.Output != "text" && flags.Output != "json" {
		return &cmd.ExitError{Code: ExitUsage, Err: fmt.Errorf("--output %q: want text or json", flags.Output)}
	}
	client, err := flags.Cluster.Client()
	if err != nil {
		return &cmd.ExitError{Code: ExitUsage, Err: err}
	}
	// The image facts of the data dir (--data-dir, else the default), as
	// the nodes' pulls read them; doctor asks no registry.
	images := registry.Flags{Mode: registry.ModeCatalog}
	images.DataDir, _ = datadir.Resolve(flags.Cluster.DataDir)
	resolver, err := images.Resolver()
	if err != nil {
		return &cmd.ExitError{Code: ExitUsage, Err: err}
	}
	state, err := doctor.Read(c.Context(), client)
	if err != nil {
		return &cmd.ExitError{Code: ExitUsage, Err: flags.Cluster.Explain(fmt.Errorf("reading the cluster (check --kubeconfig and --context): %w", err))}
	}
	state.Images = resolver
	report := doctor.Check(state)
	if err := doctor.Write(streams.Out, report, flags.Output); err != nil {
		return err
	}
	if report.Fails(threshold) {
		return &cmd.ExitError{Code: ExitFindings}
	}
	return nil
}
