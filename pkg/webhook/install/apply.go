package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// FieldManager owns the fields Install applies (server-side apply).
const FieldManager = "winkube"

// kind is a resource Install may create, in install order.
type kind struct {
	name       string
	gvr        schema.GroupVersionResource
	namespaced bool
}

var kinds = []kind{
	{"Namespace", schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, false},
	{"ServiceAccount", schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, true},
	{"ClusterRole", schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, false},
	{"ClusterRoleBinding", schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}, false},
	{"Secret", schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, true},
	{"Issuer", schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "issuers"}, true},
	{"Certificate", schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}, true},
	{"Deployment", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, true},
	{"Service", schema.GroupVersionResource{Version: "v1", Resource: "services"}, true},
	{"MutatingWebhookConfiguration", schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"}, false},
	{"ValidatingWebhookConfiguration", schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}, false},
}

func kindOf(name string) (kind, bool) {
	for _, k := range kinds {
		if k.name == name {
			return k, true
		}
	}
	return kind{}, false
}

// Client applies and removes the webhook's objects.
type Client struct {
	Core    kubernetes.Interface
	Dynamic dynamic.Interface
	Out     io.Writer // progress lines; nil for none
}

// NewClient connects to the cluster of cfg.
func NewClient(cfg *rest.Config, out io.Writer) (*Client, error) {
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("API client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("API client: %w", err)
	}
	return &Client{Core: core, Dynamic: dyn, Out: out}, nil
}

func (c *Client) say(format string, args ...any) {
	if c.Out != nil {
		fmt.Fprintf(c.Out, format+"\n", args...)
	}
}

// HasCertManager reports whether the cluster serves cert-manager's
// Certificate and Issuer resources.
func (c *Client) HasCertManager() bool {
	list, err := c.Core.Discovery().ServerResourcesForGroupVersion("cert-manager.io/v1")
	if err != nil {
		return false
	}
	found := 0
	for _, r := range list.APIResources {
		if r.Name == "certificates" || r.Name == "issuers" {
			found++
		}
	}
	return found == 2
}

// Result says what Install did.
type Result struct {
	Certs *Certs // the certificates served with; nil with cert-manager
	// CertsCreated is false when valid certificates were reused.
	CertsCreated bool
	Applied      []string // "Kind namespace/name"
}

// Install applies the webhook's objects (create or update, so running it
// again converges). In URL mode the certificates live in certDir and the
// caller runs the server; in the cluster they live in a Secret, reused
// while they stay valid so a second install does not restart the pods.
func (c *Client) Install(ctx context.Context, o Options, certDir string) (*Result, error) {
	o = o.withDefaults()
	res := &Result{}
	var err error
	switch {
	case o.URL != "":
		host, err := URLHost(o.URL)
		if err != nil {
			return nil, err
		}
		res.Certs, res.CertsCreated, err = EnsureCerts(certDir, []string{host})
		if err != nil {
			return nil, fmt.Errorf("--cert-dir %s: %w", certDir, err)
		}
	case !o.CertManager:
		res.Certs, res.CertsCreated, err = c.servingCerts(ctx, o.Namespace)
		if err != nil {
			return nil, err
		}
	}
	var bundle []byte
	if res.Certs != nil {
		bundle = res.Certs.CA
	}
	objs, err := Objects(o, bundle, res.Certs)
	if err != nil {
		return nil, err
	}
	for _, obj := range objs {
		name, err := c.apply(ctx, obj)
		if err != nil {
			return res, err
		}
		if name != "" {
			res.Applied = append(res.Applied, name)
		}
	}
	return res, nil
}

// servingCerts reuses the certificates of an earlier install's Secret
// while they are valid for the Service's names, else makes new ones.
func (c *Client) servingCerts(ctx context.Context, namespace string) (*Certs, bool, error) {
	hosts := ServiceHosts(namespace)
	s, err := c.Core.CoreV1().Secrets(namespace).Get(ctx, SecretName, metav1.GetOptions{})
	if err == nil {
		old := &Certs{CA: s.Data[CAFile], Cert: s.Data[corev1.TLSCertKey], Key: s.Data[corev1.TLSPrivateKeyKey]}
		if old.Check(hosts, time.Now()) == nil {
			return old, false, nil
		}
	}
	certs, err := NewCerts(hosts)
	return certs, true, err
}

// apply server-side applies obj and returns "Kind namespace/name", or ""
// for a namespace that existed before and is not winkube's to own.
func (c *Client) apply(ctx context.Context, obj runtime.Object) (string, error) {
	u, err := toUnstructured(obj)
	if err != nil {
		return "", err
	}
	k, ok := kindOf(u.GetKind())
	if !ok {
		return "", fmt.Errorf("no resource for kind %s", u.GetKind())
	}
	name := describe(k, u.GetNamespace(), u.GetName())
	if k.name == "Namespace" && c.foreignNamespace(ctx, u.GetName()) {
		c.say(" - %s exists; left as it is", name)
		return "", nil
	}
	data, err := json.Marshal(u)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	force := true
	_, err = c.resource(k, u.GetNamespace()).Patch(ctx, u.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: FieldManager, Force: &force})
	if err != nil {
		return "", fmt.Errorf("applying %s: %w", name, err)
	}
	c.say(" ✓ %s", name)
	return name, nil
}

// foreignNamespace is true when the namespace exists without winkube's
// label: Install uses it but Uninstall must never delete it.
func (c *Client) foreignNamespace(ctx context.Context, name string) bool {
	ns, err := c.Core.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	return err == nil && ns.Labels[LabelManagedBy] != ManagedBy
}

func (c *Client) resource(k kind, namespace string) dynamic.ResourceInterface {
	if k.namespaced {
		return c.Dynamic.Resource(k.gvr).Namespace(namespace)
	}
	return c.Dynamic.Resource(k.gvr)
}

func toUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
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

func describe(k kind, namespace, name string) string {
	if k.namespaced {
		return k.name + " " + namespace + "/" + name
	}
	return k.name + " " + name
}

// Uninstall deletes every object an Install of instance created (all
// instances when empty), webhook configurations first so kube-apiserver
// stops calling a webhook that is going away, the namespace last. It
// returns what it deleted; nothing to delete is not an error.
func (c *Client) Uninstall(ctx context.Context, instance string) ([]string, error) {
	sel := labels.Set{LabelName: Name, LabelManagedBy: ManagedBy}
	if instance != "" {
		sel[LabelInstance] = instance
	}
	var removed []string
	var errs []error
	for i := len(kinds) - 1; i >= 0; i-- {
		k := kinds[i]
		list, err := c.Dynamic.Resource(k.gvr).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
		if apierrors.IsNotFound(err) {
			continue // cert-manager is not installed
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("listing %ss: %w", k.name, err))
			continue
		}
		for _, item := range list.Items {
			if item.GetDeletionTimestamp() != nil {
				continue // already going, from an earlier uninstall
			}
			name := describe(k, item.GetNamespace(), item.GetName())
			err := c.resource(k, item.GetNamespace()).Delete(ctx, item.GetName(), metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("deleting %s: %w", name, err))
				continue
			}
			c.say(" ✓ deleted %s", name)
			removed = append(removed, name)
		}
	}
	return removed, errors.Join(errs...)
}

// RemoveConfigurations deletes only the webhook configurations of
// instance, so kube-apiserver stops calling a webhook that is stopping.
func (c *Client) RemoveConfigurations(ctx context.Context, instance string) error {
	var errs []error
	for _, k := range kinds {
		if !strings.HasSuffix(k.name, "WebhookConfiguration") {
			continue
		}
		err := c.Dynamic.Resource(k.gvr).Delete(ctx, instance, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting %s %s: %w", k.name, instance, err))
		}
	}
	return errors.Join(errs...)
}
