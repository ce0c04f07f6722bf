package kubeapply

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/jonboulle/clockwork"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/rest"
	kubectlapply "k8s.io/kubectl/pkg/cmd/apply"
	"k8s.io/kubectl/pkg/util"

	// Before kubectl's packages initialise: see there.
	_ "github.com/winkube/winkube/pkg/kubeapply/internal/notranslations"
)

// clientSide applies objects as `kubectl apply --field-manager=winkube`
// does: kubectl's default client-side apply, whose last-applied annotation
// a later `kubectl apply -f` of the same files compares with, finding them
// unchanged. An absent object is created with the annotation; an existing
// one gets kubectl's three-way patch (the annotation, the file, the live
// object), computed by kubectl's own code.
//
// kubectl first reads the object and creates it only when that answers
// "not found". Either order gives the same objects, and the cheaper one
// depends on the cluster: on a new one, creating first saves a read per
// object; on a resumed one applying its files again, reading first saves
// a create that fails. clientSide creates first until most of the objects
// it met existed, then reads first.
type clientSide struct {
	a   *Applier     // the kinds, from discovery, and the raw client
	cfg *rest.Config // for the clients of the three-way patches
	hc  *http.Client // shared by those clients

	existed, absent atomic.Int64 // objects met that existed, or not

	mu      sync.Mutex
	clients map[schema.GroupVersion]resource.RESTClient
}

// fieldValidation is kubectl apply's default, --validate=strict: the API
// server refuses unknown and duplicate fields.
const fieldValidation = metav1.FieldValidationStrict

func newClientSide(cfg *rest.Config) (*clientSide, error) {
	a, err := NewApplier(cfg)
	if err != nil {
		return nil, err
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating HTTP client: %w", err)
	}
	return &clientSide{a: a, cfg: cfg, hc: hc, clients: map[schema.GroupVersion]resource.RESTClient{}}, nil
}

// apply applies obj and returns "Kind namespace/name". A namespaced
// object without a namespace goes to "default", as with kubectl, and obj
// is changed to say so (where its pods are is then known); nothing else
// of obj changes.
func (c *clientSide) apply(ctx context.Context, obj *unstructured.Unstructured) (string, error) {
	k, err := c.a.kindOf(obj)
	if err != nil {
		return "", err
	}
	if k.Namespaced && obj.GetNamespace() == "" {
		obj.SetNamespace(metav1.NamespaceDefault)
	}
	name := Describe(k, obj.GetNamespace(), obj.GetName())
	if obj.GetName() == "" {
		return "", fmt.Errorf("%s: cannot apply an object without metadata.name", name)
	}
	if err := c.createOrPatch(ctx, k, obj); err != nil {
		return "", fmt.Errorf("applying %s: %w", name, err)
	}
	return name, nil
}

// createOrPatch creates obj or, when it exists, patches it, trying first
// what most objects met so far needed.
func (c *clientSide) createOrPatch(ctx context.Context, k Kind, obj *unstructured.Unstructured) error {
	// create and patch change what they are given.
	if c.existed.Load() > c.absent.Load() {
		found, err := c.patch(k, obj.DeepCopy())
		if found {
			c.existed.Add(1)
			return err
		}
	}
	err := c.create(ctx, k, obj.DeepCopy())
	if !apierrors.IsAlreadyExists(err) {
		c.absent.Add(1)
		return err
	}
	c.existed.Add(1)
	_, err = c.patch(k, obj.DeepCopy())
	return err
}

// create is kubectl apply's create: obj with its last-applied annotation
// and without null fields (obj is changed), posted without reading the
// answer.
func (c *clientSide) create(ctx context.Context, k Kind, obj *unstructured.Unstructured) error {
	data, err := createBody(obj)
	if err != nil {
		return err
	}
	req := c.a.raw.Post().AbsPath("api", k.GVR.Version)
	if k.GVR.Group != "" {
		req = c.a.raw.Post().AbsPath("apis", k.GVR.Group, k.GVR.Version)
	}
	if k.Namespaced {
		req = req.Namespace(obj.GetNamespace())
	}
	return req.Resource(k.GVR.Resource).Body(data).
		Param("fieldManager", FieldManager).Param("fieldValidation", fieldValidation).
		Do(ctx).Error()
}

// patch is kubectl apply's update of an existing object: kubectl's
// Patcher reads the object and sends the three-way patch from the
// last-applied annotation to the file's configuration (nothing when they
// agree), retrying conflicts as kubectl does. Without OpenAPI it takes the
// patch strategy of the built-in kinds from their Go types (kubectl
// --openapi-patch=false; this version's types are the API server's own)
// and a JSON merge patch for the others, as kubectl does for custom
// resources. kubectl's helper runs its requests without a context; the
// API server bounds each with its request timeout. found is false when
// the object does not exist.
func (c *clientSide) patch(k Kind, obj *unstructured.Unstructured) (found bool, err error) {
	modified, err := util.GetModifiedConfiguration(obj, true, unstructured.UnstructuredJSONScheme)
	if err != nil {
		return true, err
	}
	mapping := &meta.RESTMapping{Resource: k.GVR, GroupVersionKind: obj.GroupVersionKind(), Scope: meta.RESTScopeRoot}
	if k.Namespaced {
		mapping.Scope = meta.RESTScopeNamespace
	}
	client, err := c.client(k.GVR.GroupVersion())
	if err != nil {
		return true, err
	}
	helper := resource.NewHelper(client, mapping).WithFieldManager(FieldManager).WithFieldValidation(fieldValidation)
	current, err := helper.Get(obj.GetNamespace(), obj.GetName())
	if err != nil {
		return !apierrors.IsNotFound(err), err
	}
	patcher := &kubectlapply.Patcher{
		Mapping:   mapping,
		Helper:    helper,
		Overwrite: true, // kubectl apply --overwrite's default
		BackOff:   clockwork.NewRealClock(),
	}
	_, _, err = patcher.Patch(current, modified, "", obj.GetNamespace(), obj.GetName(), io.Discard)
	return true, err
}

// client is the REST client of group version gv that kubectl's helper
// takes (kubectl's UnstructuredClientForMapping), sharing c's connections.
func (c *clientSide) client(gv schema.GroupVersion) (resource.RESTClient, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if client, ok := c.clients[gv]; ok {
		return client, nil
	}
	cfg := rest.CopyConfig(c.cfg)
	cfg.APIPath = "/apis"
	if gv.Group == "" {
		cfg.APIPath = "/api"
	}
	cfg.ContentConfig = resource.UnstructuredPlusDefaultContentConfig()
	cfg.GroupVersion = &gv
	client, err := rest.RESTClientForConfigAndClient(cfg, c.hc)
	if err != nil {
		return nil, fmt.Errorf("creating client for %s: %w", gv, err)
	}
	c.clients[gv] = client
	return client, nil
}

// createBody is obj as kubectl apply creates it (obj is changed).
func createBody(obj *unstructured.Unstructured) ([]byte, error) {
	if err := util.CreateApplyAnnotation(obj, unstructured.UnstructuredJSONScheme); err != nil {
		return nil, err
	}
	// kubectl prunes nulls after recording the annotation, so that the
	// object matches what a later apply's patch of the same file leaves.
	pruneNulls(obj.Object)
	obj.SetResourceVersion("") // as kubectl's resource.Helper.Create
	return runtime.Encode(unstructured.UnstructuredJSONScheme, obj)
}

// pruneNulls removes the null fields of v, as kubectl apply does before
// it creates an object.
func pruneNulls(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e == nil {
				delete(v, k)
			} else {
				pruneNulls(e)
			}
		}
	case []any:
		for _, e := range v {
			pruneNulls(e)
		}
	}
}
