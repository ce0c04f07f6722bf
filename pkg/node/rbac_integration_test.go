package node

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

// lockedBuffer is a progress writer the test reads while the agent writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

const restrictedUser = "winkube-restricted-node"

// restrictedRules let a node agent register and run pods but, unless
// allowAll, neither write leases nor pod status, as a kubeconfig of a
// foreign cluster might.
func restrictedRules(allowAll bool) []rbacv1.PolicyRule {
	core := []string{"nodes", "nodes/status", "pods", "events", "configmaps", "secrets", "services", "endpoints",
		"persistentvolumeclaims", "persistentvolumes", "namespaces", "serviceaccounts", "serviceaccounts/token"}
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: core, Verbs: []string{"*"}},
		{APIGroups: []string{"storage.k8s.io", "discovery.k8s.io", "events.k8s.io", "node.k8s.io"}, Resources: []string{"*"}, Verbs: []string{"*"}},
		{APIGroups: []string{""}, Resources: []string{"pods/status"}, Verbs: []string{"get"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "watch"}},
	}
	if allowAll {
		rules = append(rules,
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods/status"}, Verbs: []string{"*"}},
			rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"*"}})
	}
	return rules
}

// grantRestricted binds restrictedRules to restrictedUser until the test ends.
func grantRestricted(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: restrictedUser}, Rules: restrictedRules(false)}
	if _, err := client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create cluster role: %v", err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: restrictedUser},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: restrictedUser},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: restrictedUser}},
	}
	if _, err := client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create cluster role binding: %v", err)
	}
	t.Cleanup(func() {
		_ = client.RbacV1().ClusterRoleBindings().Delete(ctx, restrictedUser, metav1.DeleteOptions{})
		_ = client.RbacV1().ClusterRoles().Delete(ctx, restrictedUser, metav1.DeleteOptions{})
	})
	// The RBAC authorizer learns of new roles from its informers: wait until
	// it allows the first call the agent makes, or registration is refused.
	waitFor(t, time.Minute, "the restricted role to take effect", func(ctx context.Context) (bool, error) {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:               restrictedUser,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "create", Resource: "nodes"},
		}}
		got, err := client.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		return err == nil && got.Status.Allowed, nil
	})
}

// A node whose identity may not write its lease or its pods' status says
// so on the terminal once per operation, with the node, the operation and
// the API error, keeps retrying, and says when the calls work again.
func TestRestrictedIdentityReportsFailuresOnce(t *testing.T) {
	needCluster(t)
	grantRestricted(t)
	cfg := rest.CopyConfig(restConfig)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: restrictedUser}
	c := &v1alpha1.Cluster{NodePools: []v1alpha1.NodePool{{Name: "rbac", OS: v1alpha1.OSLinux, Count: ptr.To(1)}}}
	v1alpha1.SetDefaults(c)
	c.Network.ManagementCIDR = "10.127.133.0/24"
	var out lockedBuffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := Start(ctx, Options{Config: cfg, Cluster: c, Progress: &out})
	if err != nil {
		t.Fatalf("start agent as %s: %v", restrictedUser, err)
	}
	defer func() {
		a.Close()
		_ = client.CoreV1().Nodes().Delete(context.Background(), "rbac-1", metav1.DeleteOptions{})
	}()
	ns := newNamespace(t)
	createPod(t, ns, simplePod("web", "rbac-1", "nginx"))

	leaseDenied := `node rbac-1 cannot renew its lease: leases.coordination.k8s.io is forbidden: User "` + restrictedUser + `" cannot create resource "leases"`
	statusDenied := `node rbac-1 cannot update pod status: pods "web" is forbidden: User "` + restrictedUser + `" cannot patch resource "pods/status"`
	node := a.nodes["rbac-1"]
	// Wait for the retries, then check each failure was said once.
	waitFor(t, time.Minute, "two failed lease renewals and pod status writes", func(context.Context) (bool, error) {
		return node.troubles.failures(opLease) >= 2 && node.troubles.failures(opPodStatus) >= 2, nil
	})
	for _, want := range []string{leaseDenied, statusDenied} {
		if n := strings.Count(out.String(), want); n != 1 {
			t.Errorf("progress says %q %d times, want once; output:\n%s", want, n, out.String())
		}
	}

	role, err := client.RbacV1().ClusterRoles().Get(context.Background(), restrictedUser, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	role.Rules = restrictedRules(true)
	if _, err := client.RbacV1().ClusterRoles().Update(context.Background(), role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, "the recovery messages", func(context.Context) (bool, error) {
		s := out.String()
		return strings.Contains(s, "node rbac-1 can renew its lease again\n") &&
			strings.Contains(s, "node rbac-1 can update pod status again\n"), nil
	})
	waitPod(t, ns, "web", 30*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
}
