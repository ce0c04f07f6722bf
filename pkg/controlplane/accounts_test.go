package controlplane_test

import (
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"
)

// TestControllerAccountsExistBeforeTheControllerManager: by the time the
// control plane is ready, kube-controller-manager has built every
// controller, and each controller's service account in kube-system came
// from the start (the bootstrap policy's list), not from the
// controller-manager's rate-limited client: none but "default" (the
// service account controller's own work) names it as manager.
func TestControllerAccountsExistBeforeTheControllerManager(t *testing.T) {
	ctx := ctxFor(t, 30*time.Second)
	list, err := clientset(t, shared).CoreV1().ServiceAccounts(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, sa := range list.Items {
		have[sa.Name] = true
		if sa.Name == "default" {
			continue
		}
		for _, f := range sa.ManagedFields {
			if strings.HasPrefix(f.Manager, "kube-controller-manager") {
				t.Errorf("service account %s/%s was created by %s, not before it started", sa.Namespace, sa.Name, f.Manager)
			}
		}
	}
	for _, b := range bootstrappolicy.ControllerRoleBindings() {
		for _, s := range b.Subjects {
			if s.Kind == rbacv1.ServiceAccountKind && !have[s.Name] {
				t.Errorf("no service account %s/%s, which %s binds", s.Namespace, s.Name, b.Name)
			}
		}
	}
}
