// Package down is `winkube down`: stop a running cluster and delete its data dir.
package down

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cluster"
	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/datadir"
)

type flags struct{ dataDir string }

// NewCommand returns `winkube down`.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	f := &flags{}
	c := &cobra.Command{
		Use:   "down",
		Short: "Stop the cluster of a data dir (if running) and delete the data dir",
		Args:  cobra.NoArgs,
		Long: "Stops the `winkube up` that owns the data dir, if one runs, then deletes the data dir. " +
			"Only a winkube data dir is deleted (it holds winkube.lock and cluster.yaml, which `winkube up` writes); " +
			"any other directory, and the root, home and current directories, are refused with exit status 2.",
		RunE: func(c *cobra.Command, _ []string) error {
			err := cluster.Down(c.Context(), f.dataDir, streams.Out)
			var refused *datadir.RefusedError
			if errors.As(err, &refused) {
				return &cmd.ExitError{Code: 2, Err: err}
			}
			return err
		},
	}
	c.Flags().StringVar(&f.dataDir, "data-dir", "", "the cluster's data dir (default ~/.winkube/default)")
	return c
}
