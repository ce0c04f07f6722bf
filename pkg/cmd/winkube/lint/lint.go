// Package lint is `winkube lint`.
package lint

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/cmd/winkube/internal/kubeflags"
	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/lint/runner"
	"github.com/winkube/winkube/pkg/manifest"
)

type flagpole struct {
	ClusterConfig     string
	Cluster           kubeflags.Flags
	KubernetesVersion string
	// Outputs are -o/--output, the formats; Files the --output-file paths
	// paired with them; Formats the deprecated --format.
	Outputs    []string
	Files      []string
	Formats    []string
	FailOn     string
	Fix        bool
	DryRun     bool
	ValueFiles []string
	Set        []string
	Namespace  string
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
			"The target cluster is winkube's default cluster unless --cluster-config, --kubeconfig, --context or\n" +
			"--data-dir says otherwise.\n" +
			"Silence rules per object with the annotation winkube.io/ignore: \"RULE-ID,RULE-ID\".\n\n" +
			"Exit status: 0 when nothing reaches --fail-on, 1 when something does, 2 for usage or input errors.",
		Example: "  winkube lint examples/\n" +
			"  winkube lint -o text -o sarif --output-file - --output-file lint.sarif charts/web\n" +
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
	flags.Cluster.AddFlags(f)
	f.Lookup("kubeconfig").Usage = "target the live cluster of this kubeconfig (nodes and RuntimeClasses are read)"
	f.Lookup("data-dir").Usage = "target the live winkube cluster of this data dir"
	f.StringVar(&flags.KubernetesVersion, "kubernetes-version", "", fmt.Sprintf("Kubernetes version of the target cluster, e.g. 1.26 (default 1.%d, or the live cluster's)", kubeversion.DefaultMinor))
	f.StringArrayVarP(&flags.Outputs, "output", "o", nil, "report format: text, json, sarif or junit; repeat for several reports (default text)")
	f.StringArrayVar(&flags.Files, "output-file", nil, "file for the report of the -o at the same position; - is stdout (default stdout)")
	f.StringArrayVar(&flags.Formats, "format", nil, "deprecated: use -o/--output")
	_ = f.MarkHidden("format")
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
	// The image facts of the data dir (--data-dir, else the default):
	// imported ones and kept registry answers, as the nodes read them.
	flags.Images.DataDir, _ = datadir.Resolve(flags.Cluster.DataDir)
	images, err := flags.Images.Resolver()
	if err != nil {
		return &cmd.ExitError{Code: runner.ExitUsage, Err: err}
	}
	formats, files := flags.reports(streams.ErrOut)
	if flags.Fix {
		noteRendered(streams.ErrOut, args)
	}
	var cluster *rest.Config
	if flags.Cluster.Given() {
		cluster, err = flags.Cluster.RESTConfig()
		if err != nil {
			return &cmd.ExitError{Code: runner.ExitUsage, Err: err}
		}
	}
	o := runner.Options{
		Images:            images,
		Paths:             args,
		ClusterConfig:     flags.ClusterConfig,
		Cluster:           cluster,
		KubernetesVersion: flags.KubernetesVersion,
		Formats:           formats,
		Outputs:           files,
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

// reportFormats are the values -o/--output takes.
var reportFormats = map[string]bool{"text": true, "json": true, "sarif": true, "junit": true}

// reports pairs formats with files. Until the next release it also reads
// the old spellings, with a warning each: --format FORMAT, and -o FILE
// (an -o value that is not a format name but looks like a path, with a
// '.', '/' or '-', is taken as the file it was).
func (f *flagpole) reports(errOut io.Writer) (formats, files []string) {
	var oldFiles []string
	for _, v := range f.Outputs {
		if reportFormats[v] || !strings.ContainsAny(v, "-./\\") {
			formats = append(formats, v) // an unknown format is the runner's usage error
		} else {
			oldFiles = append(oldFiles, v)
		}
	}
	if len(f.Formats) > 0 {
		fmt.Fprintln(errOut, "winkube: warning: --format is deprecated and will be removed: use -o/--output FORMAT")
		formats = append(f.Formats, formats...)
	}
	if len(oldFiles) > 0 {
		fmt.Fprintf(errOut, "winkube: warning: -o/--output %s: -o now names the report format (text, json, sarif or junit); write files with --output-file %s\n", oldFiles[0], oldFiles[0])
	}
	return formats, append(oldFiles, f.Files...)
}

// noteRendered says which inputs --fix leaves alone: it rewrites plain
// YAML files, not the sources behind a Helm chart or a Kustomize build.
func noteRendered(errOut io.Writer, paths []string) {
	rendered := manifest.Rendered(paths)
	dirs := make([]string, 0, len(rendered))
	for d := range rendered {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		what := "a Kustomize directory"
		if rendered[d] == "helm" {
			what = "a Helm chart"
		}
		fmt.Fprintf(errOut, "winkube: note: --fix rewrites plain YAML files only; %s is %s: its findings are reported, not fixed (edit the files they name)\n", d, what)
	}
}
