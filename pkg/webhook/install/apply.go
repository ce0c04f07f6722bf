package install

import (
	"context"
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
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/kubeapply"
)

// FieldManager owns the fields Install applies (server-side apply).
const FieldManager = kubeapply.FieldManager

// kinds are the resources Install may create, in install order.
var kinds = []kubeapply.Kind{
	{Name: "Namespace", GVR: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}},
	{Name: "ServiceAccount", GVR: schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, Namespaced: true},
	{Name: "ClusterRole", GVR: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}},
	{Name: "ClusterRoleBinding", GVR: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}},
	{Name: "Secret", GVR: schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, Namespaced: true},
	{Name: "Issuer", GVR: schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "issuers"}, Namespaced: true},
	{Name: "Certificate", GVR: schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}, Namespaced: true},
	{Name: "Deployment", GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Namespaced: true},
	{Name: "Service", GVR: schema.GroupVersionResource{Version: "v1", Resource: "services"}, Namespaced: true},
	{Name: "MutatingWebhookConfiguration", GVR: schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"}},
	{Name: "ValidatingWebhookConfiguration", GVR: schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}},
}

func kindOf(name string) (kubeapply.Kind, bool) { return kubeapply.KindOf(kinds, name) }

func toUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	return kubeapply.ToUnstructured(obj)
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

// applier applies and removes the webhook's kinds; a namespace without
// winkube's label existed before and is never deleted.
func (c *Client) applier() *kubeapply.Applier {
	return &kubeapply.Applier{Dynamic: c.Dynamic, Kinds: kinds, Owned: labels.Set{LabelManagedBy: ManagedBy}, Out: c.Out}
}

func (c *Client) apply(ctx context.Context, obj runtime.Object) (string, error) {
	return c.applier().Apply(ctx, obj)
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
	return c.applier().Delete(ctx, sel)
}

// RemoveConfigurations deletes only the webhook configurations of
// instance, so kube-apiserver stops calling a webhook that is stopping.
func (c *Client) RemoveConfigurations(ctx context.Context, instance string) error {
	var errs []error
	for _, k := range kinds {
		if !strings.HasSuffix(k.Name, "WebhookConfiguration") {
			continue
		}
		err := c.Dynamic.Resource(k.GVR).Delete(ctx, instance, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting %s %s: %w", k.Name, instance, err))
		}
	}
	return errors.Join(errs...)
}
