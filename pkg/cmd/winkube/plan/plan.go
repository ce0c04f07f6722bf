// Package plan is `winkube plan`.
package plan

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/plan"
)

type flagpole struct {
	Config    string
	Output    string // the report format
	OutputDir string
	Format    string // deprecated spelling of Output
}

// NewCommand returns `winkube plan`.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	flags := &flagpole{}
	c := &cobra.Command{
		Use:   "plan [flags]",
		Short: "Plan the address spaces and write the files that join real Windows nodes as the Kubernetes guide for adding Windows nodes does",
		Long: "winkube plan reads a winkube Cluster file (the one winkube up takes, plus kubernetesVersion,\n" +
			"controlPlaneEndpoint, network.flannel, nodePools[].nodes and proxy), prints the address spaces and\n" +
			"their capacity (PLAN-1), the Windows releases the Kubernetes version supports (VER-1), the pause\n" +
			"image per build (IMG-5) and every check's verdict, and with --output-dir writes the flannel manifest, the\n" +
			"Linux DaemonSet pin, per-node kubelet/kube-proxy flags, service registration and join scripts,\n" +
			"and RuntimeClasses.\n\n" +
			"Exit status: 0 when every check passes, 1 when a check fails (nothing is written), 2 for usage or input errors.",
		Example:       "  winkube plan --config cluster.yaml\n  winkube plan --config cluster.yaml --output-dir out/\n  winkube plan -o json",
		Args:          noArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, _ []string) error {
			flags.oldSpellings(streams.ErrOut)
			return run(streams, flags)
		},
	}
	c.Flags().StringVar(&flags.Config, "config", "", "winkube Cluster file (default: winkube up's default cluster)")
	c.Flags().StringVarP(&flags.Output, "output", "o", "text", "report format: text or json")
	c.Flags().StringVar(&flags.OutputDir, "output-dir", "", "directory to write the generated files to")
	c.Flags().StringVar(&flags.Format, "format", "", "deprecated: use -o/--output")
	_ = c.Flags().MarkHidden("format")
	return c
}

// noArgs rejects arguments as a usage error (exit 2).
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return &cmd.ExitError{Code: 2, Err: fmt.Errorf("unexpected argument %q: pass the cluster file with --config", args[0])}
	}
	return nil
}

func run(streams cmd.IOStreams, flags *flagpole) error {
	if flags.Output != "text" && flags.Output != "json" {
		return &cmd.ExitError{Code: 2, Err: fmt.Errorf("--output %q: use text or json", flags.Output)}
	}
	cfg, err := v1alpha1.Read(flags.Config)
	if err != nil {
		return &cmd.ExitError{Code: 2, Err: err}
	}
	p, err := plan.New(cfg)
	if err != nil {
		return &cmd.ExitError{Code: 2, Err: fmt.Errorf("cluster config %s: %w", flags.Config, err)}
	}
	if flags.Output == "json" {
		err = p.WriteJSON(streams.Out)
	} else {
		err = p.WriteText(streams.Out)
	}
	if err != nil {
		return fmt.Errorf("writing the plan: %w", err)
	}
	if !p.Passed() {
		return &cmd.ExitError{Code: 1, Err: errors.New("the plan has failing checks; change the fields they name (nothing written)")}
	}
	if flags.OutputDir == "" {
		return nil
	}
	files, err := p.Files()
	if err != nil {
		return err
	}
	if err := plan.Write(flags.OutputDir, files); err != nil {
		return &cmd.ExitError{Code: 2, Err: fmt.Errorf("--output-dir %s: %w", flags.OutputDir, err)}
	}
	if flags.Output == "text" {
		fmt.Fprintf(streams.Out, "wrote %d files to %s\n", len(files), flags.OutputDir)
	}
	return nil
}

// oldSpellings reads, for one more release and with a warning each, the
// flags as they were: --format FORMAT, and -o DIR (an -o value other than
// text or json that looks like a path, with a '.', '/' or '-').
func (f *flagpole) oldSpellings(errOut io.Writer) {
	if f.Output != "text" && f.Output != "json" && f.OutputDir == "" && strings.ContainsAny(f.Output, "-./") {
		fmt.Fprintf(errOut, "winkube: warning: -o/--output %s: -o now names the report format (text or json); write the files with --output-dir %s\n", f.Output, f.Output)
		f.OutputDir, f.Output = f.Output, "text"
	}
	if f.Format != "" {
		fmt.Fprintln(errOut, "winkube: warning: --format is deprecated and will be removed: use -o/--output FORMAT")
		f.Output = f.Format
	}
}
