package kubeapply

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// crdEstablishTimeout bounds the wait for the API server to serve the
// kinds of the applied CustomResourceDefinitions.
const crdEstablishTimeout = 30 * time.Second

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// waitEstablished waits until every CustomResourceDefinition among objs is
// Established, so the custom resources applied next are served (kubectl
// users do this with `kubectl wait --for condition=established`).
func waitEstablished(ctx context.Context, cfg *rest.Config, objs []Object) error {
	var names []string
	for _, o := range objs {
		if o.Obj.GetKind() == "CustomResourceDefinition" {
			names = append(names, o.Obj.GetName())
		}
	}
	if len(names) == 0 {
		return nil
	}
	client, err := dynamic.NewForConfig(applyConfig(cfg))
	if err != nil {
		return fmt.Errorf("creating dynamic client: %w", err)
	}
	deadline := time.Now().Add(crdEstablishTimeout)
	for _, name := range names {
		for !established(ctx, client, name) {
			if time.Now().After(deadline) {
				return fmt.Errorf("CustomResourceDefinition %s: not Established within %s", name, crdEstablishTimeout)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return nil
}

func established(ctx context.Context, client dynamic.Interface, name string) bool {
	crd, err := client.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return false
	}
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}
