package gmsa

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// ReadObjects lists what NewStaticCredSpecs answers from: the cluster's
// GMSACredentialSpecs (none when the CRD is not installed) and its RBAC
// objects. lint (with --kubeconfig) and doctor read them once instead of
// asking a review per pod.
func ReadObjects(ctx context.Context, c kubernetes.Interface) ([]*unstructured.Unstructured, RBAC, error) {
	specs, err := readSpecs(ctx, c)
	if err != nil {
		return nil, RBAC{}, err
	}
	rbac, err := readRBAC(ctx, c)
	return specs, rbac, err
}

func readSpecs(ctx context.Context, c kubernetes.Interface) ([]*unstructured.Unstructured, error) {
	if rc, ok := c.CoreV1().RESTClient().(*rest.RESTClient); !ok || rc == nil {
		// A fake clientset has no REST client.
		return nil, fmt.Errorf("list %s: the client cannot make raw requests", GVR.GroupResource())
	}
	raw, err := c.CoreV1().RESTClient().Get().AbsPath("/apis", Group, Version, Resource).Do(ctx).Raw()
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", GVR.GroupResource(), err)
	}
	list := &unstructured.UnstructuredList{}
	if err := json.Unmarshal(raw, list); err != nil {
		return nil, fmt.Errorf("list %s: %w", GVR.GroupResource(), err)
	}
	var out []*unstructured.Unstructured
	for i := range list.Items {
		out = append(out, &list.Items[i])
	}
	return out, nil
}

func readRBAC(ctx context.Context, c kubernetes.Interface) (RBAC, error) {
	var out RBAC
	all := metav1.ListOptions{}
	roles, err := c.RbacV1().Roles("").List(ctx, all)
	if err != nil {
		return out, fmt.Errorf("list roles: %w", err)
	}
	for i := range roles.Items {
		out.Roles = append(out.Roles, &roles.Items[i])
	}
	rbs, err := c.RbacV1().RoleBindings("").List(ctx, all)
	if err != nil {
		return out, fmt.Errorf("list rolebindings: %w", err)
	}
	for i := range rbs.Items {
		out.RoleBindings = append(out.RoleBindings, &rbs.Items[i])
	}
	crs, err := c.RbacV1().ClusterRoles().List(ctx, all)
	if err != nil {
		return out, fmt.Errorf("list clusterroles: %w", err)
	}
	for i := range crs.Items {
		out.ClusterRoles = append(out.ClusterRoles, &crs.Items[i])
	}
	crbs, err := c.RbacV1().ClusterRoleBindings().List(ctx, all)
	if err != nil {
		return out, fmt.Errorf("list clusterrolebindings: %w", err)
	}
	for i := range crbs.Items {
		out.ClusterRoleBindings = append(out.ClusterRoleBindings, &crbs.Items[i])
	}
	return out, nil
}
