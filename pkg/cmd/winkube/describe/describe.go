// Package describe is `winkube describe pod NAME`.
package describe

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/cmd/winkube/internal/kubeflags"
	"github.com/winkube/winkube/pkg/describe"
)

type flags struct {
	cluster   kubeflags.Flags
	namespace string
}

// NewCommand returns `winkube describe`.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	f := &flags{}
	c := &cobra.Command{
		Use:   "describe pod NAME",
		Short: "Show a pod with its node, events and the CPU/memory limits the Windows runtime receives",
		Example: "  winkube describe pod win-webserver-6f7c9d-abcde\n" +
			"  winkube describe pod -n web iis-0 --kubeconfig ~/.kube/config",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 2 || args[0] != "pod" {
				return &cmd.ExitError{Code: 2, Err: fmt.Errorf("usage: winkube describe pod NAME")}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			cs, err := f.cluster.Client()
			if err != nil {
				return &cmd.ExitError{Code: 2, Err: err}
			}
			return f.cluster.Explain(describe.Pod(c.Context(), cs, f.namespace, args[1], streams.Out))
		},
	}
	f.cluster.AddFlags(c.Flags())
	c.Flags().StringVarP(&f.namespace, "namespace", "n", "default", "namespace of the pod")
	return c
}
