// Package component is the hidden `winkube component NAME ...` command: the
// control plane re-executes the winkube binary with it to run one upstream
// component (kube-apiserver, kube-scheduler, kube-controller-manager) per
// child process, because their global flags and loggers collide.
package component

import (
	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/controlplane"
)

// NewCommand returns the hidden component command.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:                "component NAME [FLAGS...]",
		Short:              "Run one upstream control-plane component (internal)",
		Hidden:             true,
		DisableFlagParsing: true,
		Args:               cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := controlplane.RunComponent(c.Context(), args[0], args[1:]); err != nil {
				return &cmd.ExitError{Code: 1, Err: err}
			}
			return nil
		},
	}
}
