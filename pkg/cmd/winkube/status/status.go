// Package status is `winkube status`: whether a cluster runs, and where.
package status

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cluster"
	"github.com/winkube/winkube/pkg/cmd"
)

// NewCommand returns `winkube status`.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	var dataDir, output string
	c := &cobra.Command{
		Use:   "status [NAME]",
		Short: "Say whether a cluster runs, its API server, nodes and data dir",
		Long: "Shows the cluster NAME (default winkube), or the one in --data-dir. Exit status: 0 when it runs, " +
			"3 when it is stopped, 2 when there is no such cluster.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if output != "" && output != "json" {
				return &cmd.ExitError{Code: 2, Err: fmt.Errorf("-o %q: want json, or no -o for text", output)}
			}
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			info, err := find(name, dataDir)
			if err != nil {
				return err
			}
			if output == "json" {
				enc := json.NewEncoder(streams.Out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(info); err != nil {
					return err
				}
			} else {
				write(streams.Out, info)
			}
			if info.Status != cluster.Running {
				return &cmd.ExitError{Code: 3}
			}
			return nil
		},
	}
	c.Flags().StringVar(&dataDir, "data-dir", "", "the cluster's data dir (instead of NAME)")
	c.Flags().StringVarP(&output, "output", "o", "", "output format: json (default: text)")
	return c
}

// find is cluster.Find with its usage errors exiting 2.
func find(name, dataDir string) (cluster.Info, error) {
	info, err := cluster.Find(name, dataDir)
	var input *cluster.InputError
	if errors.As(err, &input) || cluster.IsNotFound(err) {
		return info, &cmd.ExitError{Code: 2, Err: err}
	}
	return info, err
}

func write(w io.Writer, i cluster.Info) {
	fmt.Fprintf(w, "Cluster %s is %s.\n", i.Name, i.Status)
	if i.PID != 0 {
		fmt.Fprintf(w, "  PID:        %d\n", i.PID)
	}
	if i.APIServer != "" {
		fmt.Fprintf(w, "  API server: %s\n", i.APIServer)
	}
	fmt.Fprintf(w, "  Nodes:      %d\n", i.Nodes)
	fmt.Fprintf(w, "  Data dir:   %s\n", i.DataDir)
	fmt.Fprintf(w, "  Kubeconfig: %s\n", i.Kubeconfig)
	if i.Log != "" {
		fmt.Fprintf(w, "  Log:        %s\n", i.Log)
	}
}
