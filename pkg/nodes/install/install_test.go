package install

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/node"
)

// testWriter sends progress lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// access is one thing the agent's service account asks the API server.
type access struct {
	verb, group, resource, subresource, namespace, name string
}

func (a access) String() string {
	s := a.verb + " " + a.resource
	if a.subresource != "" {
		s += "/" + a.subresource
	}
	if a.namespace != "" {
		s += " in " + a.namespace
	}
	return s
}

// needs is what pkg/node and its components call (the agent and node
// status, the pod worker and its volumes, tokens and pull secrets, the
// kubelet API's certificate and authorization, the plugin registry;
// pkg/shard).
var needs = []access{
	{verb: "create", resource: "nodes"}, {verb: "update", resource: "nodes"}, {verb: "patch", resource: "nodes"},
	{verb: "watch", resource: "nodes"}, {verb: "delete", resource: "nodes"},
	{verb: "patch", resource: "nodes", subresource: "status"},
	{verb: "list", resource: "pods"}, {verb: "watch", resource: "pods"}, {verb: "delete", resource: "pods", namespace: "default"},
	{verb: "patch", resource: "pods", subresource: "status", namespace: "default"},
	{verb: "watch", resource: "services"}, {verb: "watch", group: "discovery.k8s.io", resource: "endpointslices"},
	{verb: "get", resource: "configmaps", namespace: "default"}, {verb: "get", resource: "secrets", namespace: "default"},
	{verb: "get", resource: "serviceaccounts", namespace: "default"},
	{verb: "create", resource: "serviceaccounts", subresource: "token", namespace: "default"},
	{verb: "get", resource: "persistentvolumeclaims", namespace: "default"}, {verb: "get", resource: "persistentvolumes"},
	{verb: "get", group: "storage.k8s.io", resource: "csidrivers"},
	{verb: "create", resource: "events", namespace: "default"}, {verb: "patch", resource: "events", namespace: "default"},
	{verb: "create", group: "coordination.k8s.io", resource: "leases", namespace: "kube-node-lease"},
	{verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: "kube-node-lease"},
	// the shard Leases (pkg/shard)
	{verb: "list", group: "coordination.k8s.io", resource: "leases", namespace: "kube-node-lease"},
	{verb: "delete", group: "coordination.k8s.io", resource: "leases", namespace: "kube-node-lease"},
	{verb: "watch", resource: "configmaps", namespace: "kube-system"},
	{verb: "watch", group: "apps", resource: "daemonsets", namespace: "kube-system"},
	{verb: "create", group: "certificates.k8s.io", resource: "certificatesigningrequests"},
	{verb: "get", group: "certificates.k8s.io", resource: "certificatesigningrequests"},
	// the kubelet API's authentication and authorization (kubeletauth.go)
	{verb: "create", group: "authentication.k8s.io", resource: "tokenreviews"},
	{verb: "create", group: "authorization.k8s.io", resource: "subjectaccessreviews"},
}

// denied is what a kubelet's permissions do not include.
var denied = []access{
	{verb: "get", resource: "nodes", subresource: "proxy"}, // exec into any pod of the real nodes
	{verb: "list", resource: "secrets"},
	{verb: "create", resource: "pods", namespace: "default"},
	{verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: "default"},
	{verb: "watch", resource: "configmaps", namespace: "default"},
	{verb: "update", group: "certificates.k8s.io", resource: "certificatesigningrequests", subresource: "approval"},
	{verb: "create", group: "rbac.authorization.k8s.io", resource: "clusterrolebindings"},
}

func allowed(ctx context.Context, core kubernetes.Interface, user string, a access) (bool, error) {
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   user,
		Groups: []string{"system:serviceaccounts", "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: a.verb, Group: a.group, Resource: a.resource, Subresource: a.subresource, Namespace: a.namespace, Name: a.name,
		},
	}}
	got, err := core.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return got.Status.Allowed, nil
}

// TestInstallGrantsAKubeletsPermissions installs the agent's objects into
// the real control plane, checks that its service account may do what the
// emulated kubelets do and no more, runs the agent as that service account
// until its nodes are Ready, and uninstalls everything.
func TestInstallGrantsAKubeletsPermissions(t *testing.T) {
	needCluster(t)
	ctx := context.Background()
	core := kubernetes.NewForConfigOrDie(restConfig)
	c, err := NewClient(restConfig, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	const ns, release = "winkube-nodes-test", "nodes-test"
	t.Cleanup(func() { _, _ = c.Uninstall(context.Background(), release) })
	pools := []v1alpha1.NodePool{
		{Name: "itest-linux", OS: v1alpha1.OSLinux, Count: ptr.To(1)},
		{Name: "itest-win", OS: v1alpha1.OSWindows, Release: "2022", Count: ptr.To(1)},
	}
	applied, err := c.Install(ctx, Options{Namespace: ns, Release: release, Image: "winkube:test", Pools: pools})
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) != 10 || applied[0] != "Namespace "+ns || applied[len(applied)-1] != "Deployment "+ns+"/"+release {
		t.Errorf("applied %v, want 10 objects from the namespace to the Deployment", applied)
	}
	again, err := c.Install(ctx, Options{Namespace: ns, Release: release, Image: "winkube:test", Pools: pools})
	if err != nil || len(again) != len(applied) {
		t.Errorf("second install: %v, %v", again, err)
	}

	user := "system:serviceaccount:" + ns + ":" + release
	// The RBAC authorizer learns of new bindings from its informers.
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		return allowed(ctx, core, user, needs[0])
	})
	if err != nil {
		t.Fatalf("the service account never got its permissions: %v", err)
	}
	for _, a := range needs {
		if ok, err := allowed(ctx, core, user, a); err != nil || !ok {
			t.Errorf("the agent may not %s (err %v)", a, err)
		}
	}
	for _, a := range denied {
		if ok, err := allowed(ctx, core, user, a); err != nil || ok {
			t.Errorf("the agent may %s, which a kubelet may not (err %v)", a, err)
		}
	}

	runAgentAs(t, core, user, ns, release)

	removed, err := c.Uninstall(ctx, release)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 10 || removed[0] != "Deployment "+ns+"/"+release || removed[len(removed)-1] != "Namespace "+ns {
		t.Errorf("removed %v, want the 10 objects, the Deployment first and the namespace last", removed)
	}
	for _, lns := range []string{"kube-system", "kube-node-lease"} {
		if _, err := core.RbacV1().Roles(lns).Get(ctx, release, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("Role %s/%s after uninstall: %v", lns, release, err)
		}
	}
	if again, err := c.Uninstall(ctx, release); err != nil || len(again) != 0 {
		t.Errorf("second uninstall: removed %v, err %v", again, err)
	}
}

// runAgentAs runs the emulated nodes of the installed ConfigMap as the
// agent's service account, as the pod would, until they are Ready.
func runAgentAs(t *testing.T, core kubernetes.Interface, user, ns, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cm, err := core.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := v1alpha1.Decode([]byte(cm.Data["cluster.yaml"]))
	if err != nil {
		t.Fatalf("the agent would refuse its config: %v", err)
	}
	cfg := rest.CopyConfig(restConfig)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}}
	agent, err := node.Start(ctx, node.Options{Config: cfg, Cluster: cluster, Progress: testWriter{t}})
	if err != nil {
		t.Fatalf("the agent cannot start as %s: %v", user, err)
	}
	names := agent.NodeNames()
	defer func() {
		agent.Close()
		for _, n := range names {
			_ = core.CoreV1().Nodes().Delete(context.Background(), n, metav1.DeleteOptions{})
		}
	}()
	select {
	case <-agent.Ready():
	case <-ctx.Done():
		t.Fatalf("nodes not Ready as %s: %v", user, agent.NotReady())
	}
	if !slices.Equal(names, []string{"itest-linux-1", "itest-win-1"}) {
		t.Errorf("nodes = %v", names)
	}
}
