// Package lint is `winkube lint`.
package lint

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/lint/runner"
)

type flagpole struct {
	ClusterConfig     string
	Kubeconfig        string
	KubernetesVersion string
	Formats           []string
	Outputs           []string
	FailOn            string
	Fix               bool
	DryRun            bool
	ValueFiles        []string
	Set               []string
	Namespace         string
	// Images are --resolve-images and the registry flags.
	Images registry.Flags
}

// NewCommand returns `winkube lint`.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	flags := &flagpole{}
	c := &cobra.Command{
		Use:   "lint [flags] PATH...",
		Short: "Check manifests, Helm charts and Kustomize trees for Windows incompatibilities and wrong-OS placement",
		Long: "winkube lint checks Pods and workloads, Services and RuntimeClasses against the Windows node rule book:\n" +
			"the API server's OS field rules (API-*), Windows limitations no API server enforces (LIM-*), and where\n" +
			"each workload can land on the target cluster and whether its images run there (SCH-*, IMG-*).\n\n" +
			"PATH is a file, a directory (Helm charts and Kustomize directories are rendered), or - for stdin.\n" +
			"The target cluster is winkube's default cluster unless --cluster-config or --kubeconfig says otherwise.\n" +
			"Silence rules per object with the annotation winkube.io/ignore: \"RULE-ID,RULE-ID\".\n\n" +
			"Exit status: 0 when nothing reaches --fail-on, 1 when something does, 2 for usage or input errors.",
		Example: "  winkube lint examples/\n" +
			"  winkube lint --format text --format sarif --output - --output lint.sarif charts/web\n" +
			"  winkube lint --cluster-config cluster.yaml --fix --dry-run deploy/",
		Args:          cobra.ArbitraryArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, args []string) error {
			return run(c, streams, flags, args)
		},
	}
	f := c.Flags()
	f.StringVar(&flags.ClusterConfig, "cluster-config", "", "target the cluster described by this winkube Cluster file (as for winkube up)")
	f.StringVar(&flags.Kubeconfig, "kubeconfig", "", "target the live cluster of this kubeconfig (nodes and RuntimeClasses are read)")
	f.StringVar(&flags.KubernetesVersion, "kubernetes-version", "", fmt.Sprintf("Kubernetes version of the target cluster, e.g. 1.26 (default 1.%d, or the live cluster's)", kubeversion.DefaultMinor))
	f.StringArrayVar(&flags.Formats, "format", nil, "report format: text, json, sarif or junit; repeat for several reports (default text)")
	f.StringArrayVarP(&flags.Outputs, "output", "o", nil, "file for the report of the --format at the same position; - is stdout (default stdout)")
	f.StringVar(&flags.FailOn, "fail-on", "error", "least severity that makes the exit status 1: error, warning, info or none")
	f.BoolVar(&flags.Fix, "fix", false, "rewrite plain YAML files in place so workloads place on nodes that run their images")
	f.BoolVar(&flags.DryRun, "dry-run", false, "with --fix, print a unified diff instead of writing files")
	f.StringArrayVarP(&flags.ValueFiles, "values", "f", nil, "Helm values file for the charts among the inputs (repeatable)")
	f.StringArrayVar(&flags.Set, "set", nil, "Helm value for the charts among the inputs, key=value (repeatable)")
	f.StringVarP(&flags.Namespace, "namespace", "n", "", "namespace Helm charts are rendered for (default \"default\")")
	flags.Images.AddFlags(f, registry.ModeCatalog)
	return c
}

func run(c *cobra.Command, streams cmd.IOStreams, flags *flagpole, args []string) error {
	images, err := flags.Images.Resolver()
	if err != nil {
		return &cmd.ExitError{Code: runner.ExitUsage, Err: err}
	}
	o := runner.Options{
		Images:            images,
		Paths:             args,
		ClusterConfig:     flags.ClusterConfig,
		Kubeconfig:        flags.Kubeconfig,
		KubernetesVersion: flags.KubernetesVersion,
		Formats:           flags.Formats,
		Outputs:           flags.Outputs,
		FailOn:            flags.FailOn,
		Fix:               flags.Fix,
		DryRun:            flags.DryRun,
	}
	o.Load.ValueFiles = flags.ValueFiles
	o.Load.Set = flags.Set
	o.Load.Namespace = flags.Namespace
	code, err := runner.Run(c.Context(), o, runner.Streams{In: streams.In, Out: streams.Out, ErrOut: streams.ErrOut})
	if code != runner.ExitClean || err != nil {
		return &cmd.ExitError{Code: code, Err: err}
	}
	return nil
}
