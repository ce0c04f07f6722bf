// Package stop is `winkube stop`: stop a running cluster, keeping its state.
package stop

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cluster"
	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/datadir"
)

// NewCommand returns `winkube stop`.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	var dataDir string
	c := &cobra.Command{
		Use:   "stop [NAME]",
		Short: "Stop a running cluster (the `winkube up` that runs it) and keep its state",
		Long: "Sends SIGTERM to the `winkube up` that runs the cluster NAME (default winkube) or the one in " +
			"--data-dir, as Ctrl-C would, and waits until it has stopped. The state stays: `winkube up` (with the " +
			"same --name or --data-dir) starts the cluster again; `winkube down` deletes it.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			dir, err := datadir.Target(name, dataDir)
			if err != nil {
				return &cmd.ExitError{Code: 2, Err: err}
			}
			err = cluster.Stop(c.Context(), dir, streams.Out)
			var nf *cluster.NotFoundError
			if errors.As(err, &nf) {
				if dataDir == "" {
					nf.Name = orDefault(name)
				}
				return &cmd.ExitError{Code: 2, Err: err}
			}
			return err
		},
	}
	c.Flags().StringVar(&dataDir, "data-dir", "", "the cluster's data dir (instead of NAME)")
	return c
}

func orDefault(name string) string {
	if name == "" {
		return datadir.DefaultName
	}
	return name
}
