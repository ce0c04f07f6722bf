// Package kubeapply is winkube's one way to put objects into a cluster,
// as field manager "winkube". The installers (`winkube webhook install`,
// `winkube nodes install`, gmsa) and the kube-system add-ons server-side
// apply a fixed list of kinds in order and remove theirs by label in the
// reverse order, using but never deleting a namespace that existed
// before (Applier). `winkube up --apply` applies a user's files as
// `kubectl apply` does, with kubectl's client-side apply, any kind the
// cluster serves, many at a time (ApplyAll).
package kubeapply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
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
	// Mapper finds the resource of a kind not in Kinds from the cluster's
	// discovery; nil allows only Kinds.
	Mapper meta.RESTMapper
	// Owned are the labels of the installer's objects. A namespace without
	// them existed before: it is used as it is and never deleted.
	Owned labels.Set
	Out   io.Writer // progress lines; nil for none

	// raw, when set, sends the apply patches (and ApplyAll's creates) and
	// discards the object the API server answers with, which is never
	// read: decoding it, and collecting what that allocated, was about a
	// quarter of winkube's CPU per object in `up --apply`. NewApplier sets
	// it.
	raw rest.Interface
}

// NewApplier is an Applier for any kind the cluster behind cfg serves, as
// `kubectl apply` is.
func NewApplier(cfg *rest.Config) (*Applier, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating discovery client: %w", err)
	}
	// The dynamic client's own configuration (dynamic.NewForConfig), its
	// REST client shared by the raw patches.
	dcfg := dynamic.ConfigFor(cfg)
	dcfg.GroupVersion, dcfg.APIPath = nil, "/if-you-see-this-search-for-the-break"
	raw, err := rest.UnversionedRESTClientFor(dcfg)
	if err != nil {
		return nil, fmt.Errorf("creating dynamic client: %w", err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	return &Applier{Dynamic: dynamic.New(raw), Mapper: mapper, raw: raw}, nil
}

func (a *Applier) say(format string, args ...any) {
	if a.Out != nil {
		fmt.Fprintf(a.Out, format+"\n", args...)
	}
}

// Apply server-side applies obj and returns "Kind namespace/name", or ""
// for a namespace that existed before and is not the installer's to own.
// A namespaced object without a namespace goes to "default", as with
// kubectl (an unstructured obj is changed to say so).
func (a *Applier) Apply(ctx context.Context, obj runtime.Object) (string, error) {
	u, err := ToUnstructured(obj)
	if err != nil {
		return "", err
	}
	k, err := a.kindOf(u)
	if err != nil {
		return "", err
	}
	if k.Namespaced && u.GetNamespace() == "" {
		u.SetNamespace(metav1.NamespaceDefault)
	}
	name := Describe(k, u.GetNamespace(), u.GetName())
	if k.Name == "Namespace" && a.Owned != nil && a.foreignNamespace(ctx, k, u.GetName()) {
		a.say(" - %s exists; left as it is", name)
		return "", nil
	}
	data, err := json.Marshal(u)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if err := a.patch(ctx, k, u.GetNamespace(), u.GetName(), data); err != nil {
		return "", fmt.Errorf("applying %s: %w", name, err)
	}
	a.say(" ✓ %s", name)
	return name, nil
}

// patch server-side applies data to the object name of kind k, forcing
// conflicts, as the field manager winkube.
func (a *Applier) patch(ctx context.Context, k Kind, namespace, name string, data []byte) error {
	if a.raw == nil {
		force := true
		_, err := a.Resource(k, namespace).Patch(ctx, name, types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: FieldManager, Force: &force})
		return err
	}
	// The dynamic client's request (its URL, parameters and checks of the
	// names, in its words), without the decoding of the answer.
	if name == "" {
		return errors.New("name is required")
	}
	req := a.raw.Patch(types.ApplyPatchType).AbsPath("api", k.GVR.Version)
	if k.GVR.Group != "" {
		req = a.raw.Patch(types.ApplyPatchType).AbsPath("apis", k.GVR.Group, k.GVR.Version)
	}
	if k.Namespaced {
		req = req.Namespace(namespace)
	}
	return req.Resource(k.GVR.Resource).Name(name).Body(data).
		Param("fieldManager", FieldManager).Param("force", "true").Do(ctx).Error()
}

// kindOf is the resource of u's kind: from Kinds, else from the Mapper.
func (a *Applier) kindOf(u *unstructured.Unstructured) (Kind, error) {
	if k, ok := KindOf(a.Kinds, u.GetKind()); ok {
		return k, nil
	}
	if a.Mapper == nil {
		return Kind{}, fmt.Errorf("no resource for kind %s", u.GetKind())
	}
	gvk := u.GroupVersionKind()
	m, err := a.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return Kind{}, fmt.Errorf("%s %s: unknown kind: %w", gvk.Kind, u.GetName(), err)
	}
	return Kind{Name: gvk.Kind, GVR: m.Resource, Namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace}, nil
}

// forgetKinds drops what the Mapper learnt from discovery, so that the
// next look reads it again. Its cache otherwise counts as fresh once read,
// and a kind the API server began serving since stays unknown: a
// CustomResourceDefinition is Established before its group is in
// discovery, which the API server's discovery controller adds on its own
// time after it sees the condition.
func (a *Applier) forgetKinds() {
	if r, ok := a.Mapper.(meta.ResettableRESTMapper); ok {
		r.Reset()
	}
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
	// field it cannot own, and a zero status (DaemonSet's counters are not
	// omitempty), which is not the applier's to set.
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
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
