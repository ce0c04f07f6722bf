package plan

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
)

// The generated manifests are valid for the real API server: each object
// is server-side applied with dry run, so admission and validation run and
// nothing is stored.
// rule: PLAN-2, PLAN-6, NET-2, KP-1, KP-8
func TestManifestsDryRun(t *testing.T) {
	if restConfig == nil {
		t.Skip("needs the control plane (not -short)")
	}
	dyn, err := dynamic.NewForConfig(restConfig)
	if err != nil {
		t.Fatal(err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(restConfig)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco))
	for _, name := range goldenConfigs {
		files, err := planFor(t, name).Files()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !strings.HasSuffix(f.Path, ".yaml") || strings.HasSuffix(f.Path, "node-selector-patch.yaml") {
				continue
			}
			for _, obj := range decodeAll(t, f) {
				mapping, err := mapper.RESTMapping(obj.GroupVersionKind().GroupKind(), obj.GroupVersionKind().Version)
				if err != nil {
					t.Fatalf("%s: %s: %v", f.Path, obj.GetKind(), err)
				}
				var ri dynamic.ResourceInterface = dyn.Resource(mapping.Resource)
				if ns := obj.GetNamespace(); ns != "" {
					ri = dyn.Resource(mapping.Resource).Namespace(ns)
				}
				_, err = ri.Apply(context.Background(), obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "winkube-plan-test", DryRun: []string{metav1.DryRunAll}, Force: true})
				if err != nil {
					t.Errorf("%s %s: %s %s: %v", name, f.Path, obj.GetKind(), obj.GetName(), err)
				}
			}
		}
	}
}

func decodeAll(t *testing.T, f File) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewBufferString(f.Content), 4096)
	for {
		obj := &unstructured.Unstructured{}
		err := dec.Decode(&obj.Object)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		if len(obj.Object) > 0 {
			out = append(out, obj)
		}
	}
}
