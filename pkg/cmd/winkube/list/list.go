// Package list is `winkube list`: the clusters under ~/.winkube and whether
// they run.
package list

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cluster"
	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/datadir"
)

// NewCommand returns `winkube list`.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	var output string
	c := &cobra.Command{
		Use:   "list",
		Short: "List the clusters (~/.winkube) and whether they run",
		Long: "Lists the clusters winkube knows by name: the data dirs under ~/.winkube, and those started " +
			"with --name and --data-dir elsewhere (linked from ~/.winkube). A cluster started with --data-dir " +
			"alone is not listed; `winkube status --data-dir DIR` shows it.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if output != "" && output != "json" {
				return &cmd.ExitError{Code: 2, Err: fmt.Errorf("-o %q: want json, or no -o for a table", output)}
			}
			infos, err := inspectAll()
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(streams.Out, infos)
			}
			return writeTable(streams.Out, infos)
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "", "output format: json (default: a table)")
	return c
}

func inspectAll() ([]cluster.Info, error) {
	entries, err := datadir.List()
	if err != nil {
		return nil, err
	}
	infos := []cluster.Info{}
	for _, e := range entries {
		info, err := cluster.Inspect(e.Dir, e.Name)
		if err != nil {
			continue // removed while we looked
		}
		info.Name = e.Name
		infos = append(infos, info)
	}
	return infos, nil
}

func writeJSON(w io.Writer, infos []cluster.Info) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(infos)
}

func writeTable(w io.Writer, infos []cluster.Info) error {
	if len(infos) == 0 {
		_, err := fmt.Fprintln(w, "No clusters. `winkube up` starts one (--detach for the background, --name for another).")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATUS\tNODES\tAPI SERVER\tDATA DIR")
	for _, i := range infos {
		api := i.APIServer
		if api == "" {
			api = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", i.Name, i.Status, strconv.Itoa(i.Nodes), api, i.DataDir)
	}
	return tw.Flush()
}
