// Package install puts winkube's node agent (`winkube nodes`) into a
// cluster: the objects of the winkube-nodes Helm chart, rendered from the
// chart embedded in the binary with helm's own engine and values schema,
// so that `winkube nodes install` and `helm install` apply the same thing.
package install

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	winkubenodes "github.com/winkube/winkube/deploy/helm/winkube-nodes"
)

// Chart loads the embedded winkube-nodes chart.
func Chart() (*chart.Chart, error) {
	var files []*loader.BufferedFile
	err := fs.WalkDir(winkubenodes.Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(winkubenodes.Files, path)
		if err != nil {
			return err
		}
		files = append(files, &loader.BufferedFile{Name: path, Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the embedded chart: %w", err)
	}
	return loader.LoadFiles(files)
}

// Render renders the chart as `helm template RELEASE -n NAMESPACE` does,
// values checked against the chart's schema, and returns the objects.
// service is the managed-by label of the objects: "Helm" under helm,
// ManagedBy for `winkube nodes install`.
func Render(chrt *chart.Chart, release, namespace, service string, values map[string]any) ([]*unstructured.Unstructured, error) {
	opts := chartutil.ReleaseOptions{Name: release, Namespace: namespace, Revision: 1, IsInstall: true}
	vals, err := chartutil.ToRenderValues(chrt, values, opts, chartutil.DefaultCapabilities.Copy())
	if err != nil {
		return nil, err
	}
	if rel, ok := vals["Release"].(map[string]any); ok {
		rel["Service"] = service
	}
	files, err := engine.Engine{}.Render(chrt, vals)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var objs []*unstructured.Unstructured
	for _, n := range names {
		got, err := decode(files[n])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		objs = append(objs, got...)
	}
	return objs, nil
}

// decode splits a rendered template into its objects; empty documents
// (a template whose condition is false) are dropped.
func decode(text string) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewBufferString(text), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}
