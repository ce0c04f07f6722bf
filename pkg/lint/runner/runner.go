// Package runner is `winkube lint` end to end: it resolves the target
// cluster, loads the inputs, lints them, writes every requested report and
// applies --fix. The cobra command only parses flags into Options.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/lint"
	"github.com/winkube/winkube/pkg/lint/fix"
	"github.com/winkube/winkube/pkg/lint/report"
	"github.com/winkube/winkube/pkg/manifest"
	"github.com/winkube/winkube/pkg/rules"
	"k8s.io/client-go/rest"
)

// Exit codes of `winkube lint`.
const (
	ExitClean    = 0
	ExitFindings = 1
	ExitUsage    = 2
)

// Options are the flags and arguments of `winkube lint`.
type Options struct {
	Paths []string
	// Load carries stdin and the Helm options.
	Load manifest.Options
	// ClusterConfig is a Cluster file; Cluster a live cluster's client
	// config (--kubeconfig, --context, --data-dir). Neither means winkube's
	// default cluster.
	ClusterConfig string
	Cluster       *rest.Config
	// KubernetesVersion overrides the target's version ("1.26").
	KubernetesVersion string
	// Formats and Outputs pair by position; a missing or "-" output is stdout.
	Formats []string
	Outputs []string
	// FailOn is the least severity that makes the exit code 1.
	FailOn string
	Fix    bool
	DryRun bool
	// Images answers image platforms; nil is the built-in catalog.
	Images imageinfo.Resolver
}

// output is one report to write.
type output struct {
	format string
	write  report.Writer
	path   string
}

// Streams are where Run reads stdin ("-" among the paths) and writes its
// reports and notes.
type Streams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// Run lints and reports. It returns the exit code: ExitClean, ExitFindings
// when a finding reaches FailOn, ExitUsage for usage or input errors (after
// reporting whatever did load). err, when set, is for the caller to print;
// input errors have been reported already and leave it nil.
func Run(ctx context.Context, o Options, streams Streams) (code int, err error) {
	outputs, threshold, err := o.validate()
	if err != nil {
		return ExitUsage, err
	}
	target, err := o.target(ctx)
	if err != nil {
		return ExitUsage, err
	}
	defer startHeap(startingHeap)()
	linter := lint.New(target)
	if o.Images != nil {
		linter.UseResolver(ctx, o.Images)
	}
	result := o.lint(linter, streams.In)
	if o.Fix && len(result.Edits) > 0 {
		result = o.fix(linter, result, streams)
	}
	// The text report lists input errors among its lines; say them on
	// stderr too unless that report is already on the terminal.
	if !textOnStdout(outputs) {
		for _, e := range result.Errors {
			fmt.Fprintf(streams.ErrOut, "winkube lint: %v\n", e)
		}
	}
	if err := writeOutputs(outputs, result, streams.Out); err != nil {
		return ExitUsage, err
	}
	// Input errors win over findings: both are reported, and the exit
	// status says that not everything could be checked.
	switch {
	case len(result.Errors) > 0:
		return ExitUsage, nil
	case result.Fails(threshold):
		return ExitFindings, nil
	}
	return ExitClean, nil
}

// textOnStdout reports whether a text report goes to stdout.
func textOnStdout(outputs []output) bool {
	for _, o := range outputs {
		if o.format == "text" && o.path == "" {
			return true
		}
	}
	return false
}

// validate checks the flags before any work is done.
func (o *Options) validate() ([]output, rules.Severity, error) {
	if len(o.Paths) == 0 {
		return nil, 0, errors.New("no input: pass manifest files, directories, Helm charts, Kustomize directories or - for stdin")
	}
	if o.ClusterConfig != "" && o.Cluster != nil {
		return nil, 0, errors.New("--cluster-config and --kubeconfig are exclusive: pick the cluster file or the live cluster")
	}
	if o.DryRun && !o.Fix {
		return nil, 0, errors.New("--dry-run only applies to --fix")
	}
	threshold, err := rules.ParseSeverity(o.FailOn)
	if err != nil {
		return nil, 0, fmt.Errorf("--fail-on: %w", err)
	}
	outputs, err := pairOutputs(o.Formats, o.Outputs)
	return outputs, threshold, err
}

// pairOutputs matches --format and --output by position. No --format means
// one text report.
func pairOutputs(formats, paths []string) ([]output, error) {
	if len(formats) == 0 {
		formats = []string{"text"}
	}
	if len(paths) > len(formats) {
		return nil, fmt.Errorf("%d --output flags for %d --format flags: give one --format before each --output", len(paths), len(formats))
	}
	var out []output
	for i, f := range formats {
		w, err := report.ForFormat(f)
		if err != nil {
			return nil, fmt.Errorf("--format: %w", err)
		}
		o := output{format: strings.ToLower(f), write: w}
		if i < len(paths) && paths[i] != "-" {
			o.path = paths[i]
		}
		out = append(out, o)
	}
	return out, nil
}

// target resolves the cluster the manifests are checked against.
func (o *Options) target(ctx context.Context) (*lint.Target, error) {
	var t *lint.Target
	minor := kubeversion.DefaultMinor
	if o.KubernetesVersion != "" {
		m, err := kubeversion.ParseMinor(o.KubernetesVersion)
		if err != nil {
			return nil, fmt.Errorf("--kubernetes-version: %w", err)
		}
		minor = m
	}
	if o.Cluster != nil {
		live, err := lint.TargetFromLive(ctx, o.Cluster)
		if err != nil {
			return nil, fmt.Errorf("--kubeconfig: %w", err)
		}
		if o.KubernetesVersion != "" {
			live.Minor = minor
		}
		return live, nil
	}
	c, err := v1alpha1.Load(o.ClusterConfig)
	if err != nil {
		return nil, fmt.Errorf("--cluster-config: %w", err)
	}
	t, err = lint.TargetFromClusterAt(c, minor)
	if err != nil {
		return nil, fmt.Errorf("--cluster-config: %w", err)
	}
	return t, nil
}

// fix applies the result's edits. A dry run prints the diff on stdout; a
// real run rewrites the files, says so on stderr and lints again so the
// report and the exit code show what is left (stdin cannot be read twice,
// so then the first result stands).
func (o *Options) fix(l *lint.Linter, result *lint.Result, streams Streams) *lint.Result {
	out := streams.ErrOut
	if o.DryRun {
		out = streams.Out
	}
	if err := fix.Apply(toFixEdits(result.Edits), o.DryRun, out); err != nil {
		result.Errors = append(result.Errors, fmt.Errorf("--fix: %w", err))
		return result
	}
	if o.DryRun || o.readsStdin() {
		return result
	}
	return o.lint(l, streams.In)
}

func (o *Options) readsStdin() bool {
	for _, p := range o.Paths {
		if p == "-" {
			return true
		}
	}
	return false
}

// lint loads the inputs and lints them; load errors join the result's.
func (o *Options) lint(l *lint.Linter, stdin io.Reader) *lint.Result {
	opts := o.Load
	opts.Stdin = stdin
	objs, errs := manifest.Load(o.Paths, opts)
	result := l.Lint(objs)
	result.Errors = append(errs, result.Errors...)
	return result
}

func writeOutputs(outputs []output, r *lint.Result, stdout io.Writer) error {
	for _, o := range outputs {
		if err := writeOutput(o, r, stdout); err != nil {
			return err
		}
	}
	return nil
}

func writeOutput(o output, r *lint.Result, stdout io.Writer) error {
	if o.path == "" {
		return o.write(stdout, r)
	}
	f, err := os.Create(o.path)
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	if err := o.write(f, r); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	return nil
}

func toFixEdits(edits []lint.Edit) []fix.Edit {
	out := make([]fix.Edit, 0, len(edits))
	for _, e := range edits {
		out = append(out, fix.Edit{File: e.File, Doc: e.Doc, PodSpec: e.PodSpec, OS: e.OS, NodeSelector: e.NodeSelector, Tolerations: e.Tolerations})
	}
	return out
}
