package apitest

import (
	"context"
	"io"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/gmsa"
	"github.com/winkube/winkube/pkg/lint"
	"github.com/winkube/winkube/pkg/manifest"
)

// rule: GMSA-1, GMSA-2
// With --kubeconfig, lint reads the cluster's GMSACredentialSpecs and
// RBAC: a Deployment alone (no spec, no RBAC in the input) is refused for
// a spec the cluster lacks (GMSA-1) and for a service account the
// cluster's RBAC does not let `use` it (GMSA-2), and passes for one it
// does, in the windows-gmsa webhook's words.
func TestLiveGMSA(t *testing.T) {
	if config == nil {
		t.Skip("integration test: needs the control plane (not in -short mode)")
	}
	ctx := context.Background()
	gc, err := gmsa.NewClient(config, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := gc.InstallCRD(ctx); err != nil {
		t.Fatal(err)
	}
	spec := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gmsa.Group + "/" + gmsa.Version, "kind": gmsa.Kind,
		"metadata": map[string]any{"name": "lint-live-spec"},
		"credspec": map[string]any{"CmsPlugins": []any{"ActiveDirectory"}},
	}}
	if _, err := client.Resource(gmsa.GVR).Create(ctx, spec, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	core := kubernetes.NewForConfigOrDie(config)
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "lint-live-spec-user"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{gmsa.Group}, Resources: []string{gmsa.Resource}, Verbs: []string{gmsa.UseVerb}, ResourceNames: []string{"lint-live-spec"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "lint-live-spec", Namespace: "default"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "allowed", Namespace: "default"}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name}}
	if _, err := core.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := core.RbacV1().RoleBindings("default").Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = core.RbacV1().RoleBindings("default").Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
		_ = core.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
		_ = client.Resource(gmsa.GVR).Delete(context.Background(), spec.GetName(), metav1.DeleteOptions{})
	})
	target, err := lint.TargetFromLive(ctx, config)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ sa, spec, want string }{
		{"allowed", "lint-live-spec", ""},
		{"allowed", "no-such-spec", "GMSA-1: cred spec no-such-spec does not exist"},
		{"other", "lint-live-spec", "GMSA-2: service account \"other\" is not authorized to `use` GMSA cred spec \"lint-live-spec\""},
	} {
		got := ""
		for _, f := range lint.New(target).Lint(gmsaDeployment(t, c.sa, c.spec)).Findings {
			if strings.HasPrefix(f.Rule, "GMSA-") {
				got = f.Rule + ": " + f.Message[strings.Index(f.Message, ": ")+2:]
			}
		}
		if got != c.want {
			t.Errorf("%s using %s: lint says %q, want %q", c.sa, c.spec, got, c.want)
		}
	}
}

func gmsaDeployment(t *testing.T, sa, spec string) []manifest.Object {
	t.Helper()
	d := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "default"},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{
					"serviceAccountName": sa,
					"securityContext":    map[string]any{"windowsOptions": map[string]any{"gmsaCredentialSpecName": spec}},
					"containers":         []any{map[string]any{"name": "app", "image": "mcr.microsoft.com/windows/servercore:ltsc2022"}},
				},
			},
		},
	}}
	return []manifest.Object{{File: "in.yaml", Doc: -1, Obj: d}}
}
