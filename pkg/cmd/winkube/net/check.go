package net

import (
	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/network/reach"
)

func newCheckCommand(streams cmd.IOStreams, f *flags) *cobra.Command {
	var port int
	var protocol string
	c := &cobra.Command{
		Use:   "check SOURCE TARGET",
		Short: "Say whether SOURCE can reach TARGET, the path it takes, and the rules that decide it",
		Long: "SOURCE is pod/NAMESPACE/NAME, node/NAME or external.\n" +
			"TARGET is pod/NAMESPACE/NAME, svc/NAMESPACE/NAME, node/NAME, an IP, or a DNS name resolved the way " +
			"SOURCE's resolver would (Windows pods have one DNS suffix and treat any name with a dot as fully qualified).\n\n" +
			"Exit status: 0 reachable, 1 unreachable, 2 usage or input error.",
		Example: "  winkube net check pod/default/win-client svc/default/win-webserver\n" +
			"  winkube net check pod/default/win-client win-webserver.default --port 80\n" +
			"  winkube net check node/win2019-1 node/win2019-1 --port 30080\n" +
			"  winkube net check pod/default/win-client 8.8.8.8 --protocol icmp -o json",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usage("usage: winkube net check SOURCE TARGET (see 'winkube net check --help')")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			_, checker, err := f.load(c.Context())
			if err != nil {
				return err
			}
			res, err := checker.Check(reach.Request{Source: args[0], Target: args[1], Port: port, Protocol: protocol})
			if err != nil {
				return inputError(err)
			}
			if err := f.print(streams.Out, res); err != nil {
				return err
			}
			if !res.Reachable {
				return &cmd.ExitError{Code: 1}
			}
			return nil
		},
	}
	c.Flags().IntVar(&port, "port", 0, "destination port (default: the Service's first port; any port for pods and nodes)")
	c.Flags().StringVar(&protocol, "protocol", "tcp", "tcp, udp or icmp")
	return c
}

func newMatrixCommand(streams cmd.IOStreams, f *flags) *cobra.Command {
	var namespace string
	c := &cobra.Command{
		Use:   "matrix",
		Short: "Check every supported flow (pod → pod, Service, external, node) from one Windows and one Linux pod",
		Long: "matrix picks the first running Windows pod and Linux pod of the namespace and a Service with a " +
			"selector, and checks the flows Windows supports for TCP/UDP plus the cases that differ on Windows " +
			"(a name with a dot, ICMP out, a node's own NodePort).",
		Example: "  winkube net matrix -n default",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, checker, err := f.load(c.Context())
			if err != nil {
				return err
			}
			m, err := checker.Matrix(namespace)
			if err != nil {
				return inputError(err)
			}
			return f.print(streams.Out, m)
		},
	}
	c.Flags().StringVarP(&namespace, "namespace", "n", "default", "namespace whose pods and Service to use")
	return c
}
