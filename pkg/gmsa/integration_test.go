package gmsa_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
	"github.com/winkube/winkube/pkg/gmsa"
)

// One real control plane with the CRD installed and the webhook served
// in-process and registered by URL, as `winkube up --gmsa` does.
var (
	client  kubernetes.Interface
	dyn     dynamic.Interface
	webhook *gmsa.InProcess
)

const instance = "winkube-gmsa-test"

func TestMain(m *testing.M) {
	os.Exit(cptest.Main(m, func(_ *controlplane.ControlPlane, cfg *rest.Config) (func(), error) {
		client = kubernetes.NewForConfigOrDie(cfg)
		dyn = dynamic.NewForConfigOrDie(cfg)
		dir, err := os.MkdirTemp("", "winkube-gmsa-certs-")
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		webhook, err = gmsa.StartInProcess(ctx, cfg, dir, instance, metav1.NamespaceSystem, nil)
		if err != nil {
			return nil, err
		}
		return func() { webhook.Stop(); os.RemoveAll(dir) }, nil
	}))
}

func needCluster(t *testing.T) {
	t.Helper()
	if client == nil {
		t.Skip("integration test: needs the control plane (not in -short mode)")
	}
}

// credSpec0 is upstream's integration_tests/templates/credspec-0.yml; the
// JSON the webhook must inline is upstream's expectedCredSpec0.
const expectedCredSpec0 = `{"ActiveDirectoryConfig":{"GroupManagedServiceAccounts":[{"Name":"WebApplication0","Scope":"CONTOSO"},{"Name":"WebApplication0","Scope":"contoso.com"}]},"CmsPlugins":["ActiveDirectory"],"DomainJoinConfig":{"DnsName":"contoso.com","DnsTreeName":"contoso.com","Guid":"244818ae-87ca-4fcd-92ec-e79e5252348a","MachineAccountName":"WebApplication0","NetBiosName":"CONTOSO","Sid":"S-1-5-21-2126729477-2524075714-3094792973"}}`

func credSpec0(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gmsa.Group + "/" + gmsa.Version,
		"kind":       gmsa.Kind,
		"metadata":   map[string]any{"name": name},
		"credspec": map[string]any{
			"ActiveDirectoryConfig": map[string]any{"GroupManagedServiceAccounts": []any{
				map[string]any{"Name": "WebApplication0", "Scope": "CONTOSO"},
				map[string]any{"Name": "WebApplication0", "Scope": "contoso.com"},
			}},
			"CmsPlugins": []any{"ActiveDirectory"},
			"DomainJoinConfig": map[string]any{
				"DnsName": "contoso.com", "DnsTreeName": "contoso.com", "Guid": "244818ae-87ca-4fcd-92ec-e79e5252348a",
				"MachineAccountName": "WebApplication0", "NetBiosName": "CONTOSO", "Sid": "S-1-5-21-2126729477-2524075714-3094792973",
			},
		},
	}}
}

// fixture is a namespace with a credential spec, a ClusterRole granting
// `use` on it, a service account bound to that role and one that is not.
type fixture struct {
	ns, spec, allowed, denied string
}

func setup(t *testing.T) fixture {
	t.Helper()
	needCluster(t)
	ctx := context.Background()
	ns := cptest.Namespace(t, client)
	f := fixture{ns: ns, spec: ns + "-cred-spec", allowed: "allowed", denied: "denied"}
	if _, err := dyn.Resource(gmsa.GVR).Create(ctx, credSpec0(f.spec), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: f.spec + "-user"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{gmsa.Group}, Resources: []string{gmsa.Resource}, Verbs: []string{gmsa.UseVerb}, ResourceNames: []string{f.spec}}},
	}
	if _, err := client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
		_ = dyn.Resource(gmsa.GVR).Delete(context.Background(), f.spec, metav1.DeleteOptions{})
	})
	for _, sa := range []string{f.allowed, f.denied} {
		if _, err := client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "allowed-uses-cred-spec"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: f.allowed, Namespace: ns}},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
	}
	if _, err := client.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return f
}

func pod(name, sa string, podOpts *corev1.WindowsSecurityContextOptions, containerOpts *corev1.WindowsSecurityContextOptions) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			ServiceAccountName: sa,
			OS:                 &corev1.PodOS{Name: corev1.Windows},
			NodeSelector:       map[string]string{corev1.LabelOSStable: "windows"},
			Containers:         []corev1.Container{{Name: "app", Image: "mcr.microsoft.com/windows/servercore:ltsc2022"}},
		},
	}
	if podOpts != nil {
		p.Spec.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: podOpts}
	}
	if containerOpts != nil {
		p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{WindowsOptions: containerOpts}
	}
	return p
}

func named(spec string) *corev1.WindowsSecurityContextOptions {
	return &corev1.WindowsSecurityContextOptions{GMSACredentialSpecName: &spec}
}

// rule: GMSA-1
func TestResolvesTheNamedSpec(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	got, err := client.CoreV1().Pods(f.ns).Create(ctx, pod("pod-level", f.allowed, named(f.spec), nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := got.Spec.SecurityContext.WindowsOptions.GMSACredentialSpec; s == nil || *s != expectedCredSpec0 {
		t.Errorf("pod-level gmsaCredentialSpec = %v, want upstream's JSON %s", s, expectedCredSpec0)
	}
	got, err = client.CoreV1().Pods(f.ns).Create(ctx, pod("container-level", f.allowed, nil, named(f.spec)), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := got.Spec.Containers[0].SecurityContext.WindowsOptions.GMSACredentialSpec; s == nil || *s != expectedCredSpec0 {
		t.Errorf("container-level gmsaCredentialSpec = %v, want %s", s, expectedCredSpec0)
	}
	// Contents the pod sets itself are kept when they are the spec's.
	same := `{"CmsPlugins":["ActiveDirectory"],` + strings.TrimPrefix(expectedCredSpec0, `{`)
	same = strings.Replace(same, `,"CmsPlugins":["ActiveDirectory"]`, "", 1)
	opts := named(f.spec)
	opts.GMSACredentialSpec = &same
	if _, err := client.CoreV1().Pods(f.ns).Create(ctx, pod("preset-matching", f.allowed, opts, nil), metav1.CreateOptions{}); err != nil {
		t.Errorf("contents equal to the spec's as JSON, keys reordered: %v", err)
	}
	// What the webhook admits, Review over the cluster's objects admits.
	for _, p := range []*corev1.Pod{pod("a", f.allowed, named(f.spec), nil), pod("b", f.allowed, nil, named(f.spec)), pod("c", f.allowed, opts, nil)} {
		if r := gmsa.Review(ctx, staticOf(t), p, f.ns, field.NewPath("spec")); r != nil {
			t.Errorf("Review refuses pod %s the webhook admits: %+v", p.Name, r)
		}
	}
}

// refused creates p and checks the API server's refusal names the webhook
// and carries upstream's message.
func refused(t *testing.T, ns string, p *corev1.Pod, want string) {
	t.Helper()
	_, err := client.CoreV1().Pods(ns).Create(context.Background(), p, metav1.CreateOptions{})
	if err == nil {
		t.Fatalf("pod %s admitted, want refused: %s", p.Name, want)
	}
	prefix := `admission webhook "` + gmsa.WebhookName + `" denied the request: `
	if !strings.Contains(err.Error(), prefix+want) {
		t.Errorf("refusal of pod %s:\n got %v\nwant …%s%s", p.Name, err, prefix, want)
	}
	// lint and doctor ask gmsa.Review over the objects in hand: read
	// from this cluster, they must refuse the same pod in the same words.
	r := gmsa.Review(context.Background(), staticOf(t), p, ns, field.NewPath("spec"))
	if r == nil || r.Message != want {
		t.Errorf("Review of pod %s over the cluster's objects: %+v, want %q", p.Name, r, want)
	}
}

// staticOf is the cluster's GMSACredentialSpecs and RBAC objects, as
// doctor and lint --kubeconfig read them, for gmsa.Review.
func staticOf(t *testing.T) *gmsa.StaticCredSpecs {
	t.Helper()
	specs, rbac, err := gmsa.ReadObjects(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	return gmsa.NewStaticCredSpecs(specs, rbac)
}
