// Package kubeapply applies and removes the objects an installer owns
// (`winkube webhook install`, `winkube nodes install`): server-side apply
// in a fixed kind order, removal by label in the reverse order, and a
// namespace that existed before the install is used but never deleted.
package kubeapply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// FieldManager owns the fields the installers apply.
const FieldManager = "winkube"

// Kind is a resource an installer may create.
type Kind struct {
	Name       string
	GVR        schema.GroupVersionResource
	Namespaced bool
}

// KindOf finds the kind called name in kinds.
func KindOf(kinds []Kind, name string) (Kind, bool) {
	for _, k := range kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Applier applies objects of Kinds, which lists them in install order.
type Applier struct {
	Dynamic dynamic.Interface
	Kinds   []Kind
	// Owned are the labels of the installer's objects. A namespace without
	// them existed before: it is used as it is and never deleted.
	Owned labels.Set
	Out   io.Writer // progress lines; nil for none
}

func (a *Applier) say(format string, args ...any) {
	if a.Out != nil {
		fmt.Fprintf(a.Out, format+"\n", args...)
	}
}

// Apply server-side applies obj and returns "Kind namespace/name", or ""
// for a namespace that existed before and is not the installer's to own.
func (a *Applier) Apply(ctx context.Context, obj runtime.Object) (string, error) {
	u, err := ToUnstructured(obj)
	if err != nil {
		return "", err
	}
	k, ok := KindOf(a.Kinds, u.GetKind())
	if !ok {
		return "", fmt.Errorf("no resource for kind %s", u.GetKind())
	}
	name := Describe(k, u.GetNamespace(), u.GetName())
	if k.Name == "Namespace" && a.foreignNamespace(ctx, k, u.GetName()) {
		a.say(" - %s exists; left as it is", name)
		return "", nil
	}
	data, err := json.Marshal(u)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	force := true
	_, err = a.Resource(k, u.GetNamespace()).Patch(ctx, u.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: FieldManager, Force: &force})
	if err != nil {
		return "", fmt.Errorf("applying %s: %w", name, err)
	}
	a.say(" ✓ %s", name)
	return name, nil
}

// foreignNamespace is true when the namespace exists without the owned
// labels.
func (a *Applier) foreignNamespace(ctx context.Context, k Kind, name string) bool {
	ns, err := a.Dynamic.Resource(k.GVR).Get(ctx, name, metav1.GetOptions{})
	return err == nil && !labels.SelectorFromSet(a.Owned).Matches(labels.Set(ns.GetLabels()))
}

// Resource is the client of kind k in namespace (ignored for cluster-wide
// kinds).
func (a *Applier) Resource(k Kind, namespace string) dynamic.ResourceInterface {
	if k.Namespaced {
		return a.Dynamic.Resource(k.GVR).Namespace(namespace)
	}
	return a.Dynamic.Resource(k.GVR)
}

// ToUnstructured converts a typed object for apply.
func ToUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting %T: %w", obj, err)
	}
	u := &unstructured.Unstructured{Object: m}
	// Typed objects carry creationTimestamp: null, which apply rejects as a
	// field it cannot own.
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}

// Describe is "Kind namespace/name", or "Kind name" for cluster-wide kinds.
func Describe(k Kind, namespace, name string) string {
	if k.Namespaced {
		return k.Name + " " + namespace + "/" + name
	}
	return k.Name + " " + name
}

// Delete deletes every object of Kinds that sel selects, in every
// namespace, in the reverse install order (a namespace last). It returns
// what it deleted; nothing to delete is not an error, nor is a kind the
// cluster does not serve.
func (a *Applier) Delete(ctx context.Context, sel labels.Set) ([]string, error) {
	var removed []string
	var errs []error
	for i := len(a.Kinds) - 1; i >= 0; i-- {
		k := a.Kinds[i]
		list, err := a.Dynamic.Resource(k.GVR).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
		if apierrors.IsNotFound(err) {
			continue // e.g. cert-manager's kinds without cert-manager
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("listing %ss: %w", k.Name, err))
			continue
		}
		for _, item := range list.Items {
			if item.GetDeletionTimestamp() != nil {
				continue // already going, from an earlier uninstall
			}
			name := Describe(k, item.GetNamespace(), item.GetName())
			err := a.Resource(k, item.GetNamespace()).Delete(ctx, item.GetName(), metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("deleting %s: %w", name, err))
				continue
			}
			a.say(" ✓ deleted %s", name)
			removed = append(removed, name)
		}
	}
	return removed, errors.Join(errs...)
}
