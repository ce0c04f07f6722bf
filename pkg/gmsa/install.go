package gmsa

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/kubeapply"
	"github.com/winkube/winkube/pkg/webhook"
)

// WebhookName is the name of both webhooks inside their configurations
// (upstream's).
const WebhookName = "admission-webhook.windows-gmsa.sigs.k8s.io"

// DisabledLabel on a namespace with the value "true" keeps the webhooks
// out of it (upstream chart's namespaceSelector).
const DisabledLabel = "windows.k8s.io/disabled"

// Labels of what winkube installs.
const (
	LabelManagedBy = "app.kubernetes.io/managed-by"
	LabelInstance  = "app.kubernetes.io/instance"
	ManagedBy      = "winkube"
)

// Configurations are upstream's (charts/gmsa mutatingwebhook.yaml and
// validatingwebhook.yaml), both named name: the mutating webhook on pod
// CREATE, the validating one on pod CREATE and UPDATE, failurePolicy
// Fail, admissionReviewVersions v1 and v1beta1, sideEffects None, and a
// namespaceSelector that leaves out the webhook's own namespace and
// namespaces labelled windows.k8s.io/disabled=true. clientConfig carries
// the URL or Service (without a path) and the CA bundle.
func Configurations(name, ownNamespace string, clientConfig admissionregistrationv1.WebhookClientConfig) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration) {
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	versions := []string{"v1", "v1beta1"}
	selector := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{ownNamespace}},
		{Key: DisabledLabel, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"true"}},
	}}
	rule := func(ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
		return []admissionregistrationv1.RuleWithOperations{{
			Operations: ops,
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"*"}, Resources: []string{"pods"}},
		}}
	}
	meta := metav1.ObjectMeta{Name: name, Labels: map[string]string{LabelManagedBy: ManagedBy, LabelInstance: name}}
	mut := &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: meta,
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    WebhookName,
			ClientConfig:            webhook.WithPath(clientConfig, MutatePath),
			Rules:                   rule(admissionregistrationv1.Create),
			FailurePolicy:           &fail,
			AdmissionReviewVersions: versions,
			SideEffects:             &none,
			NamespaceSelector:       selector,
		}},
	}
	val := &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: *meta.DeepCopy(),
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    WebhookName,
			ClientConfig:            webhook.WithPath(clientConfig, ValidatePath),
			Rules:                   rule(admissionregistrationv1.Create, admissionregistrationv1.Update),
			FailurePolicy:           &fail,
			AdmissionReviewVersions: versions,
			SideEffects:             &none,
			NamespaceSelector:       selector.DeepCopy(),
		}},
	}
	return mut, val
}

var kinds = []kubeapply.Kind{
	{Name: "CustomResourceDefinition", GVR: schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}},
	{Name: "MutatingWebhookConfiguration", GVR: schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"}},
	{Name: "ValidatingWebhookConfiguration", GVR: schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}},
}

// Client installs the CRD and registers or removes the webhook.
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

// CredSpecs is the webhook's view of the cluster through c.
func (c *Client) CredSpecs() *KubeCredSpecs { return &KubeCredSpecs{Core: c.Core, Dynamic: c.Dynamic} }

func (c *Client) applier() *kubeapply.Applier {
	return &kubeapply.Applier{Dynamic: c.Dynamic, Kinds: kinds, Out: c.Out}
}

// InstallCRD applies the GMSACredentialSpec CRD and waits until the API
// server serves it (condition Established).
func (c *Client) InstallCRD(ctx context.Context) error {
	crd, err := CRD()
	if err != nil {
		return err
	}
	if _, err := c.applier().Apply(ctx, crd); err != nil {
		return err
	}
	k, _ := kubeapply.KindOf(kinds, "CustomResourceDefinition")
	var last error
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		u, err := c.Dynamic.Resource(k.GVR).Get(ctx, CRDName, metav1.GetOptions{})
		if err != nil {
			last = err
			return false, nil
		}
		return established(u), nil
	})
	if err != nil {
		return fmt.Errorf("CustomResourceDefinition %s not established: %w", CRDName, errors.Join(err, last))
	}
	return nil
}

func established(u *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// Register applies the configurations of name pointing at url
// (https://HOST:PORT) with the CA bundle the serving certificate chains
// to; ownNamespace is left out of admission.
func (c *Client) Register(ctx context.Context, name, ownNamespace, url string, caBundle []byte) error {
	mut, val := Configurations(name, ownNamespace, admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caBundle})
	for _, obj := range []runtime.Object{mut, val} {
		if _, err := c.applier().Apply(ctx, obj); err != nil {
			return err
		}
	}
	return nil
}

// Unregister deletes the configurations called name; none is no error.
func (c *Client) Unregister(ctx context.Context, name string) error {
	var errs []error
	for _, k := range kinds[1:] {
		err := c.Dynamic.Resource(k.GVR).Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting %s %s: %w", k.Name, name, err))
		}
	}
	return errors.Join(errs...)
}
