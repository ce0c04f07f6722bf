package net

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/network"
	"github.com/winkube/winkube/pkg/rules"
)

func newHNSCommand(streams cmd.IOStreams, f *flags) *cobra.Command {
	return &cobra.Command{
		Use:   "hns NODE",
		Short: "Show what HNS holds on a Windows node: networks, endpoints, load balancers, subnet.env and CNI config",
		Example: "  winkube net hns win2019-1\n" +
			"  winkube net hns win2022-1 -o json",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usage("usage: winkube net hns NODE")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			m, _, err := f.load(c.Context())
			if err != nil {
				return err
			}
			n := m.Node(args[0])
			if n == nil {
				return usage("no node %q (nodes: %s)", args[0], strings.Join(nodeNames(m), ", "))
			}
			if n.OS != "windows" {
				return usage("node %q runs %s: only Windows nodes have HNS state", n.Name, n.OS)
			}
			return f.print(streams.Out, nodeView{n})
		},
	}
}

func nodeNames(m *network.Model) []string {
	var names []string
	for _, n := range m.Nodes {
		names = append(names, n.Name)
	}
	sort.Strings(names)
	return names
}

// nodeView prints a node's HNS state with its flannel and CNI files; its
// JSON is the model's node.
type nodeView struct{ *network.Node }

func (v nodeView) WriteText(w io.Writer) error {
	n := v.Node
	proxy := "no kube-proxy"
	if n.Proxy.Found {
		proxy = "kube-proxy " + n.Proxy.Mode
		if !n.Proxy.Running {
			proxy += " (not running)"
		}
	}
	fmt.Fprintf(w, "Node %s: Windows %s, %s, pod subnet %s, %s\n\n", n.Name, n.Build, n.Mode, n.PodCIDR, proxy)
	if err := n.HNS.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nsubnet.env:\n%s", indent(n.SubnetEnv))
	fmt.Fprintf(w, "\nCNI config:\n%s", indent(n.CNIConfig))
	if len(n.Findings) > 0 {
		fmt.Fprintln(w, "\nFindings:")
		for _, fd := range n.Findings {
			writeFinding(w, fd)
		}
	}
	return nil
}

// writeFinding prints a finding with the fix and related rules the rule
// book gives it, the same doctor prints.
func writeFinding(w io.Writer, f rules.Finding) {
	fmt.Fprintf(w, "  %s: %s\n", f.Rule, f.Message)
	if f.Fix != "" {
		fmt.Fprintf(w, "    fix: %s\n", f.Fix)
	}
	if len(f.See) > 0 {
		fmt.Fprintf(w, "    see: %s\n", strings.Join(f.See, ", "))
	}
}

func indent(s string) string {
	if s == "" {
		return "  (none)\n"
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return "  " + strings.Join(lines, "\n  ") + "\n"
}
