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
		Use:   "down [NAME]",
		Short: "Stop a cluster (if running) and delete its data dir and kubeconfig context",
		Args:  cobra.MaximumNArgs(1),
		Long: "Stops the `winkube up` that runs the cluster NAME (default winkube) or the one in --data-dir, if one runs, " +
			"then deletes the data dir and removes the cluster's context winkube-NAME from $KUBECONFIG's first file or ~/.kube/config " +
			"(other entries are left as they are). " +
			"Only a winkube data dir is deleted (it holds winkube.lock and cluster.yaml, which `winkube up` writes); " +
			"any other directory, and the root, home and current directories, are refused with exit status 2.",
		RunE: func(c *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			dir, err := datadir.Target(name, f.dataDir)
			if err != nil {
				return &cmd.ExitError{Code: 2, Err: err}
			}
			err = cluster.Down(c.Context(), dir, streams.Out)
			var refused *datadir.RefusedError
			if errors.As(err, &refused) {
				return &cmd.ExitError{Code: 2, Err: err}
			}
			return err
		},
	}
	c.Flags().StringVar(&f.dataDir, "data-dir", "", "the cluster's data dir (instead of NAME)")
	return c
}
