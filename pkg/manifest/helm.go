package manifest

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	chartloader "helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/strvals"
	"sigs.k8s.io/yaml"
)

// helmReleaseName is the release name templates see, as in `helm template`.
const helmReleaseName = "release-name"

// renderHelm renders the chart in dir in-process, the way `helm template`
// does (client only, default capabilities), and parses each rendered
// template into objects whose File is the template's source path.
func renderHelm(dir string, opts Options) ([]Object, []error) {
	files, err := renderChart(dir, opts)
	if err != nil {
		return nil, []error{err}
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var objs []Object
	var errs []error
	for _, name := range names {
		o, e := parseRendered(templatePath(dir, name), files[name])
		objs = append(objs, o...)
		errs = append(errs, e...)
	}
	return objs, errs
}

// renderChart loads, values-merges and renders a chart, returning the
// rendered manifests keyed by "<chart name>/templates/x.yaml".
func renderChart(dir string, opts Options) (map[string]string, error) {
	chrt, err := chartloader.Load(dir)
	if err != nil {
		return nil, &InputError{File: dir, Err: fmt.Errorf("load helm chart: %w", err)}
	}
	if chrt.Metadata.Type == "library" {
		return nil, nil // a library chart renders nothing by itself
	}
	vals, err := helmValues(opts)
	if err != nil {
		return nil, &InputError{File: dir, Err: err}
	}
	if err := chartutil.ProcessDependenciesWithMerge(chrt, vals); err != nil {
		return nil, &InputError{File: dir, Err: fmt.Errorf("helm dependencies: %w", err)}
	}
	ns := opts.Namespace
	if ns == "" {
		ns = "default"
	}
	relOpts := chartutil.ReleaseOptions{Name: helmReleaseName, Namespace: ns, Revision: 1, IsInstall: true}
	renderVals, err := chartutil.ToRenderValues(chrt, vals, relOpts, chartutil.DefaultCapabilities.Copy())
	if err != nil {
		return nil, &InputError{File: dir, Err: fmt.Errorf("helm values: %w", err)}
	}
	files, err := engine.Engine{}.Render(chrt, renderVals)
	if err != nil {
		return nil, helmRenderError(dir, chrt, err)
	}
	for name := range files {
		if !isManifestTemplate(name) {
			delete(files, name)
		}
	}
	return files, nil
}

// isManifestTemplate drops what Helm does not install: NOTES.txt and
// partials ("_helpers.tpl"). Everything else Helm sends to the cluster.
func isManifestTemplate(name string) bool {
	base := path.Base(name)
	return base != "NOTES.txt" && !strings.HasPrefix(base, "_")
}

// helmValues merges --values files and --set flags as `helm template` does:
// files in order, later ones winning, then each --set on top.
func helmValues(opts Options) (map[string]any, error) {
	base := map[string]any{}
	for _, f := range opts.ValueFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("helm --values: %w", err)
		}
		cur := map[string]any{}
		if err := yaml.Unmarshal(data, &cur); err != nil {
			return nil, fmt.Errorf("helm --values %s: %w", f, err)
		}
		base = mergeValues(base, cur)
	}
	for _, s := range opts.Set {
		if err := strvals.ParseInto(s, base); err != nil {
			return nil, fmt.Errorf("helm --set %q: %w", s, err)
		}
	}
	return base, nil
}

// mergeValues merges b into a, recursing into maps; b wins on conflicts.
func mergeValues(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bm, ok := v.(map[string]any); ok {
			if am, ok := out[k].(map[string]any); ok {
				out[k] = mergeValues(am, bm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// templatePath maps the engine's "<chart name>/templates/x.yaml" (or
// "<chart name>/charts/sub/templates/x.yaml") onto the chart directory.
func templatePath(dir, name string) string {
	_, rest, _ := strings.Cut(name, "/")
	return filepath.Join(dir, filepath.FromSlash(rest))
}

// parseRendered parses the output of one template. Rendered lines do not
// match the template's lines, so objects carry Line 0 and errors name the
// line within the rendered output instead.
func parseRendered(file string, out string) ([]Object, []error) {
	objs, errs := parseYAML(source{file: file}, []byte(out))
	for i := range objs {
		objs[i].Line, objs[i].Doc = 0, -1
	}
	for i, err := range errs {
		if ie, ok := err.(*InputError); ok && ie.Line > 0 {
			errs[i] = &InputError{File: file, Err: fmt.Errorf("rendered output line %d: %w", ie.Line, ie.Err)}
		}
	}
	return objs, errs
}

var helmTemplateErrRE = regexp.MustCompile(`template: ([^:\s]+):(\d+):`)

// helmRenderError points a template error at the template file and line
// when the engine's message names them.
func helmRenderError(dir string, chrt *chart.Chart, err error) error {
	m := helmTemplateErrRE.FindStringSubmatch(err.Error())
	if m == nil || !strings.HasPrefix(m[1], chrt.Name()+"/") {
		return &InputError{File: dir, Err: fmt.Errorf("render helm chart: %w", err)}
	}
	line, _ := strconv.Atoi(m[2])
	return &InputError{File: templatePath(dir, m[1]), Line: line, Err: fmt.Errorf("render helm chart: %w", err)}
}
