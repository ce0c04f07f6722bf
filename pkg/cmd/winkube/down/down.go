// Package down is `winkube down`: stop a running cluster and delete its data dir.
package down

import (
	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cluster"
	"github.com/winkube/winkube/pkg/cmd"
)

type flags struct{ dataDir string }

// NewCommand returns `winkube down`.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	f := &flags{}
	c := &cobra.Command{
		Use:   "down",
		Short: "Stop the cluster of a data dir (if running) and delete the data dir",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return cluster.Down(c.Context(), f.dataDir, streams.Out)
		},
	}
	c.Flags().StringVar(&f.dataDir, "data-dir", "", "the cluster's data dir (default ~/.winkube/default)")
	return c
}
