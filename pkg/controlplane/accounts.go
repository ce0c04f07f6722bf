package controlplane

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"
)

// createControllerAccounts creates, in kube-system, the service accounts
// upstream's RBAC bootstrap policy binds the controllers' roles to, which
// kube-controller-manager (--use-service-account-credentials) would
// otherwise create itself as it builds each controller: a GET, a namespace
// GET and a POST each, about 120 requests through its one client held to
// 20 requests/s (--kube-api-qps), which kept a new cluster's controllers
// from running for some 5 s. They are the same empty objects the
// controller-manager creates; an existing one is left alone, so a resumed
// cluster costs one LIST. The policy also binds three accounts this
// controller-manager never uses (the cloud route and service controllers,
// and the SELinux warning controller, off by default); they are created too.
func createControllerAccounts(ctx context.Context, cfg *rest.Config) error {
	client, err := kubernetes.NewForConfig(unlimited(cfg))
	if err != nil {
		return err
	}
	accounts := client.CoreV1().ServiceAccounts(metav1.NamespaceSystem)
	have, err := accounts.List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list service accounts in %s: %w", metav1.NamespaceSystem, err)
	}
	exists := map[string]bool{}
	for _, sa := range have.Items {
		exists[sa.Name] = true
	}
	var missing []string
	for _, name := range controllerAccounts() {
		if !exists[name] {
			missing = append(missing, name)
		}
	}
	errs := make([]error, len(missing))
	workqueue.ParallelizeUntil(ctx, 8, len(missing), func(i int) {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: missing[i], Namespace: metav1.NamespaceSystem}}
		if _, err := accounts.Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			errs[i] = fmt.Errorf("create service account %s/%s: %w", metav1.NamespaceSystem, missing[i], err)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// controllerAccounts are the kube-system service accounts of the
// bootstrap policy's controller role bindings, in its order.
func controllerAccounts() []string {
	var names []string
	seen := map[string]bool{}
	for _, b := range bootstrappolicy.ControllerRoleBindings() {
		for _, s := range b.Subjects {
			if s.Kind == rbacv1.ServiceAccountKind && s.Namespace == metav1.NamespaceSystem && !seen[s.Name] {
				seen[s.Name] = true
				names = append(names, s.Name)
			}
		}
	}
	return names
}

// unlimited lifts client-go's default 5 requests/s for a burst of
// creations by the cluster's admin.
func unlimited(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, 0
	return cfg
}
