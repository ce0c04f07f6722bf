package cluster

import (
	"encoding/json"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	jsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/winkube/winkube/pkg/gmsa"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/manifest"
)

// Manifests are the --apply inputs, read and checked before anything
// starts, so that a typo fails in a second instead of after the whole
// cluster came up.
type Manifests struct {
	Paths   []string
	Objects []manifest.Object
}

// LoadManifests reads paths as `winkube lint` does and checks every object
// the way `kubectl apply` would decode it: a served apiVersion and kind, a
// name, and no unknown or mistyped fields (kubectl's default
// --validate=strict). Kinds of API groups the cluster does not build in
// must come from a CustomResourceDefinition among the inputs; when
// clusterExists (a resumed data dir may hold CRDs of its own) they are
// left for the API server to judge. The error lists every problem, one
// "file:line: ..." per line. installed are the kinds of upInstalls that
// this `up` installs before it applies.
func LoadManifests(paths []string, clusterExists bool, installed ...schema.GroupVersionKind) (*Manifests, error) {
	if len(paths) == 0 {
		return &Manifests{}, nil
	}
	objs, errs := manifest.Load(paths, manifest.Options{})
	crds := definedKinds(objs)
	for _, gvk := range installed {
		crds[gvk] = true
	}
	for _, o := range objs {
		if err := checkObject(o, crds, clusterExists); err != nil {
			errs = append(errs, &manifest.InputError{File: o.File, Line: o.Line, Err: err})
		}
	}
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, err := range errs {
			msgs[i] = err.Error()
		}
		return nil, fmt.Errorf("--apply: %d problem(s), nothing started:\n  %s", len(errs), strings.Join(msgs, "\n  "))
	}
	for i := range objs {
		objs[i].Tree = nil // kept by lint to place findings; up only applies
	}
	return &Manifests{Paths: paths, Objects: objs}, nil
}

// upInstalls are the kinds whose CustomResourceDefinitions `up`
// installs itself, by the flag that asks for them.
var upInstalls = map[schema.GroupVersionKind]string{
	gmsa.GVR.GroupVersion().WithKind(gmsa.Kind): "--gmsa",
}

// scheme knows every built-in kind: client-go's, plus the two groups whose
// types live in their own modules.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientscheme.AddToScheme, apiextensionsv1.AddToScheme, apiregistrationv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err) // static registrations; cannot fail at run time
		}
	}
	return s
}()

// strict decodes like the API server under fieldValidation=Strict.
var strict = jsonserializer.NewSerializerWithOptions(jsonserializer.DefaultMetaFactory, scheme, scheme, jsonserializer.SerializerOptions{Strict: true})

// servedMinor is the control plane's minor version: API versions removed
// in it or before are not served.
var servedMinor = kubeversion.DefaultMinor

func checkObject(o manifest.Object, crds map[schema.GroupVersionKind]bool, clusterExists bool) error {
	gvk := o.Obj.GroupVersionKind()
	if o.Obj.GetName() == "" {
		return fmt.Errorf("%s has no metadata.name (kubectl apply needs one; generateName is for create)", gvk.Kind)
	}
	noMatch := fmt.Errorf("unknown kind %s: no matches for kind %q in version %q", gvk.Kind, gvk.Kind, gvk.GroupVersion())
	if !scheme.IsGroupRegistered(gvk.Group) {
		if crds[gvk] || clusterExists {
			return nil
		}
		if flag, ok := upInstalls[gvk]; ok {
			return fmt.Errorf("%w (winkube up %s installs its CustomResourceDefinition)", noMatch, flag)
		}
		return fmt.Errorf("%w (no CustomResourceDefinition among the --apply inputs serves it)", noMatch)
	}
	typed, err := scheme.New(gvk)
	if err != nil {
		return noMatch
	}
	if removed, ok := typed.(interface{ APILifecycleRemoved() (int, int) }); ok {
		if _, minor := removed.APILifecycleRemoved(); minor <= servedMinor {
			return fmt.Errorf("%w (%s is not served since Kubernetes 1.%d)", noMatch, gvk.GroupVersion(), minor)
		}
	}
	data, err := json.Marshal(o.Obj.Object)
	if err != nil {
		return err
	}
	if _, _, err := strict.Decode(data, nil, nil); err != nil {
		return fmt.Errorf("%s %s: %w", gvk.Kind, o.Obj.GetName(), err)
	}
	return nil
}

// definedKinds lists the kinds the CustomResourceDefinitions among objs
// serve, so their custom resources can be applied with them.
func definedKinds(objs []manifest.Object) map[schema.GroupVersionKind]bool {
	kinds := map[schema.GroupVersionKind]bool{}
	for _, o := range objs {
		if o.Obj.GroupVersionKind().GroupKind() != apiextensionsv1.Kind("CustomResourceDefinition") {
			continue
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Obj.Object, &crd); err != nil {
			continue // checkObject reports it
		}
		for _, v := range crd.Spec.Versions {
			if v.Served {
				kinds[schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}] = true
			}
		}
	}
	return kinds
}
