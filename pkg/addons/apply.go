package addons

import (
	"context"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/deploy"
)

// Apply installs the add-ons, or brings them back in line on a resumed
// `up`: every object is server-side applied (field manager "winkube"), so a
// second run changes nothing and never duplicates anything.
//
// The two configuration ConfigMaps (kube-flannel-cfg and coredns) are
// created when missing and otherwise left alone: they are where an
// administrator tunes flannel and CoreDNS, and a resumed `up` must not undo
// that. Changing network.mode for an existing cluster therefore needs the
// ConfigMap deleted first.
func Apply(ctx context.Context, client kubernetes.Interface, cfg *v1alpha1.Cluster) error {
	if errs := v1alpha1.Validate(cfg); len(errs) > 0 {
		return fmt.Errorf("cluster config: %w", errs.ToAggregate())
	}
	for _, obj := range Objects(cfg) {
		if err := applyObject(ctx, client, obj); err != nil {
			return err
		}
	}
	return nil
}

// userOwned names the objects Apply creates but never updates.
var userOwned = map[string]bool{FlannelConfigMap: true, CoreDNSConfigMap: true}

func applyObject(ctx context.Context, client kubernetes.Interface, obj Object) error {
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	if cm, ok := obj.(*corev1.ConfigMap); ok && userOwned[cm.Name] {
		_, err := client.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{FieldManager: deploy.FieldManager})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating ConfigMap %s/%s: %w", cm.Namespace, cm.Name, err)
		}
		return nil
	}
	patch, err := patcherFor(client, obj)
	if err != nil {
		return err
	}
	data, err := applyConfiguration(obj)
	if err != nil {
		return fmt.Errorf("encoding %s %s: %w", kind, obj.GetName(), err)
	}
	force := true
	opts := metav1.PatchOptions{FieldManager: deploy.FieldManager, Force: &force}
	if err := patch(ctx, obj.GetName(), types.ApplyPatchType, data, opts); err != nil {
		return fmt.Errorf("applying %s %s: %w", kind, objectName(obj), err)
	}
	return nil
}

func objectName(obj Object) string {
	if obj.GetNamespace() == "" {
		return obj.GetName()
	}
	return obj.GetNamespace() + "/" + obj.GetName()
}

// applyConfiguration is obj as a server-side apply body: without status and
// without the zero creationTimestamp, which are not fields winkube sets.
func applyConfiguration(obj Object) ([]byte, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
	}
	return json.Marshal(m)
}

// patcher is a typed client's Patch without its typed result.
type patcher func(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) error

// typedPatch is the signature every typed client's Patch has.
type typedPatch[T any] func(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)

func untyped[T any](p typedPatch[T]) patcher {
	return func(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) error {
		_, err := p(ctx, name, pt, data, opts)
		return err
	}
}

// patcherFor picks the typed client of obj's kind.
func patcherFor(c kubernetes.Interface, obj Object) (patcher, error) {
	ns := obj.GetNamespace()
	switch obj.(type) {
	case *corev1.ServiceAccount:
		return untyped(c.CoreV1().ServiceAccounts(ns).Patch), nil
	case *corev1.ConfigMap:
		return untyped(c.CoreV1().ConfigMaps(ns).Patch), nil
	case *corev1.Service:
		return untyped(c.CoreV1().Services(ns).Patch), nil
	case *rbacv1.ClusterRole:
		return untyped(c.RbacV1().ClusterRoles().Patch), nil
	case *rbacv1.ClusterRoleBinding:
		return untyped(c.RbacV1().ClusterRoleBindings().Patch), nil
	case *appsv1.DaemonSet:
		return untyped(c.AppsV1().DaemonSets(ns).Patch), nil
	case *appsv1.Deployment:
		return untyped(c.AppsV1().Deployments(ns).Patch), nil
	}
	return nil, fmt.Errorf("add-on %s: no client for %T", objectName(obj), obj)
}
