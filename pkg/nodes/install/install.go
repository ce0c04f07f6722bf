package install

import (
	"context"
	"fmt"
	"io"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/pkg/kubeapply"
)

// kinds are what the chart renders, plus the namespace, in install
// order: the agent starts with its permissions and config in place.
var kinds = []kubeapply.Kind{
	{Name: "Namespace", GVR: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}},
	{Name: "ServiceAccount", GVR: schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, Namespaced: true},
	{Name: "ClusterRole", GVR: rbac("clusterroles")},
	{Name: "ClusterRoleBinding", GVR: rbac("clusterrolebindings")},
	{Name: "Role", GVR: rbac("roles"), Namespaced: true},
	{Name: "RoleBinding", GVR: rbac("rolebindings"), Namespaced: true},
	{Name: "ConfigMap", GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true},
	{Name: "Deployment", GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Namespaced: true},
}

func rbac(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: resource}
}

// Objects are what Install applies for o, in install order: a namespace,
// then the chart's objects.
func Objects(o Options) ([]*unstructured.Unstructured, error) {
	o = o.withDefaults()
	values, err := o.Values()
	if err != nil {
		return nil, err
	}
	chrt, err := Chart()
	if err != nil {
		return nil, err
	}
	rendered, err := Render(chrt, o.Release, o.Namespace, ManagedBy, values)
	if err != nil {
		return nil, fmt.Errorf("rendering the %s chart: %w", Name, err)
	}
	ns := &unstructured.Unstructured{}
	ns.SetAPIVersion("v1")
	ns.SetKind("Namespace")
	ns.SetName(o.Namespace)
	ns.SetLabels(Selector(o.Release))
	objs := append([]*unstructured.Unstructured{ns}, rendered...)
	return objs, sortByKind(objs)
}

// sortByKind orders objs as kinds lists them (stable within a kind).
func sortByKind(objs []*unstructured.Unstructured) error {
	rank := map[string]int{}
	for i, k := range kinds {
		rank[k.Name] = i
	}
	for _, u := range objs {
		if _, ok := rank[u.GetKind()]; !ok {
			return fmt.Errorf("the chart renders a %s, which install does not know", u.GetKind())
		}
	}
	sort.SliceStable(objs, func(i, j int) bool { return rank[objs[i].GetKind()] < rank[objs[j].GetKind()] })
	return nil
}

// YAML writes objs as a multi-document YAML stream (--dry-run).
func YAML(w io.Writer, objs []*unstructured.Unstructured) error {
	for _, u := range objs {
		data, err := yaml.Marshal(u.Object)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "---\n%s", data); err != nil {
			return err
		}
	}
	return nil
}

// Client installs and removes the agent.
type Client struct {
	applier *kubeapply.Applier
}

// NewClient connects to the cluster of cfg; out receives progress lines.
func NewClient(cfg *rest.Config, out io.Writer) (*Client, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("API client: %w", err)
	}
	return &Client{applier: &kubeapply.Applier{
		Dynamic: dyn, Kinds: kinds, Out: out,
		Owned: labels.Set{LabelManagedBy: ManagedBy},
	}}, nil
}

// Install applies the objects of o (create or update, so a second run
// converges) and returns what it applied, "Kind namespace/name".
func (c *Client) Install(ctx context.Context, o Options) ([]string, error) {
	objs, err := Objects(o)
	if err != nil {
		return nil, err
	}
	var applied []string
	for _, u := range objs {
		name, err := c.applier.Apply(ctx, u)
		if err != nil {
			return applied, err
		}
		if name != "" {
			applied = append(applied, name)
		}
	}
	return applied, nil
}

// Uninstall deletes what Install applied for release (default
// winkube-nodes), the Deployment before the permissions it runs with, the
// namespace last when Install created it. The nodes the agent registered
// stay, NotReady, as nodes do when their kubelet goes away.
func (c *Client) Uninstall(ctx context.Context, release string) ([]string, error) {
	if release == "" {
		release = Name
	}
	return c.applier.Delete(ctx, labels.Set(Selector(release)))
}
