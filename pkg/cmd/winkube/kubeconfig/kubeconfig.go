// Package kubeconfig is `winkube kubeconfig`: print a cluster's kubeconfig.
package kubeconfig

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/winkube/winkube/pkg/cluster"
	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/kubeconfig"
)

// NewCommand returns `winkube kubeconfig`.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	var dataDir string
	c := &cobra.Command{
		Use:   "kubeconfig [NAME]",
		Short: "Print the admin kubeconfig of a cluster (context winkube-NAME)",
		Long: "Prints the admin kubeconfig of the cluster NAME (default winkube) or of the one in --data-dir, " +
			"with its cluster, user and context named winkube-NAME as `winkube up` merges them.",
		Example: "  winkube kubeconfig dev > dev.kubeconfig\n  KUBECONFIG=dev.kubeconfig kubectl get nodes",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			info, err := cluster.Find(name, dataDir)
			var input *cluster.InputError
			if errors.As(err, &input) || cluster.IsNotFound(err) {
				return &cmd.ExitError{Code: 2, Err: err}
			}
			if err != nil {
				return err
			}
			cfg, err := kubeconfig.ForCluster(datadir.Kubeconfig(info.DataDir), info.Name)
			if err != nil {
				return fmt.Errorf("cluster %s: %w (has it ever started?)", info.Name, err)
			}
			data, err := clientcmd.Write(*cfg)
			if err != nil {
				return err
			}
			_, err = streams.Out.Write(data)
			return err
		},
	}
	c.Flags().StringVar(&dataDir, "data-dir", "", "the cluster's data dir (instead of NAME)")
	return c
}
