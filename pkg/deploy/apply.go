// Package deploy applies manifests to a cluster and reports where the pods
// of the applied workloads landed — what `winkube up --apply` prints.
package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// FieldManager owns the fields winkube applies (server-side apply).
const FieldManager = "winkube"

// Applier applies objects with server-side apply.
type Applier struct {
	client dynamic.Interface
	mapper meta.RESTMapper
}

// NewApplier builds an Applier for the cluster behind cfg.
func NewApplier(cfg *rest.Config) (*Applier, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating discovery client: %w", err)
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating dynamic client: %w", err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	return &Applier{client: client, mapper: mapper}, nil
}

// LastAppliedAnnotation is where kubectl's client-side apply keeps the
// configuration it applied last.
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// withLastApplied returns obj as JSON with the last-applied annotation that
// `kubectl apply` would have written, so a later `kubectl apply -f` of the
// same files merges cleanly instead of warning that the annotation is missing.
func withLastApplied(obj *unstructured.Unstructured) ([]byte, error) {
	plain := obj.DeepCopy()
	annotations := plain.GetAnnotations()
	delete(annotations, LastAppliedAnnotation)
	plain.SetAnnotations(annotations)
	last, err := json.Marshal(plain.Object)
	if err != nil {
		return nil, err
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[LastAppliedAnnotation] = string(last) + "\n"
	plain.SetAnnotations(annotations)
	return json.Marshal(plain.Object)
}

// Apply applies obj and prints one line like kubectl apply does. Objects
// without a namespace go to "default" when their kind is namespaced.
func (a *Applier) Apply(ctx context.Context, obj *unstructured.Unstructured, out io.Writer) error {
	gvk := obj.GroupVersionKind()
	m, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return fmt.Errorf("%s %s: unknown kind: %w", gvk.Kind, obj.GetName(), err)
	}
	ri := a.client.Resource(m.Resource)
	var target dynamic.ResourceInterface = ri
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		if obj.GetNamespace() == "" {
			obj.SetNamespace(metav1.NamespaceDefault)
		}
		target = ri.Namespace(obj.GetNamespace())
	}
	data, err := withLastApplied(obj)
	if err != nil {
		return fmt.Errorf("%s %s: %w", gvk.Kind, obj.GetName(), err)
	}
	force := true
	_, err = target.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: FieldManager, Force: &force})
	if err != nil {
		return fmt.Errorf("applying %s %s: %w", gvk.Kind, obj.GetName(), err)
	}
	fmt.Fprintf(out, "%s/%s applied\n", m.Resource.Resource, obj.GetName())
	return nil
}
