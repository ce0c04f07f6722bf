package addons

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/kubeapply"
)

// kinds are the add-ons' kinds, for kubeapply: a fixed list, so that `up`
// needs no discovery round trip to install them.
var kinds = []kubeapply.Kind{
	{Name: "ServiceAccount", GVR: schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, Namespaced: true},
	{Name: "ConfigMap", GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true},
	{Name: "Service", GVR: schema.GroupVersionResource{Version: "v1", Resource: "services"}, Namespaced: true},
	{Name: "ClusterRole", GVR: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}},
	{Name: "ClusterRoleBinding", GVR: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}},
	{Name: "DaemonSet", GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}, Namespaced: true},
	{Name: "Deployment", GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Namespaced: true},
}

// Apply installs the add-ons into the cluster of rc, or brings them back in
// line on a resumed `up`: every object is server-side applied (kubeapply),
// so a second run changes nothing and never duplicates anything.
//
// The two configuration ConfigMaps (kube-flannel-cfg and coredns) are
// created when missing and otherwise left alone: they are where an
// administrator tunes flannel and CoreDNS, and a resumed `up` must not undo
// that. Changing network.mode for an existing cluster therefore needs the
// ConfigMap deleted first.
func Apply(ctx context.Context, rc *rest.Config, cfg *v1alpha1.Cluster) error {
	if errs := v1alpha1.Validate(cfg); len(errs) > 0 {
		return fmt.Errorf("cluster config: %w", errs.ToAggregate())
	}
	client, err := dynamic.NewForConfig(rc)
	if err != nil {
		return fmt.Errorf("creating dynamic client: %w", err)
	}
	a := &kubeapply.Applier{Dynamic: client, Kinds: kinds}
	for _, obj := range Objects(cfg) {
		if err := applyObject(ctx, a, obj); err != nil {
			return err
		}
	}
	return nil
}

// userOwned names the objects Apply creates but never updates.
var userOwned = map[string]bool{FlannelConfigMap: true, CoreDNSConfigMap: true}

func applyObject(ctx context.Context, a *kubeapply.Applier, obj Object) error {
	if kind := obj.GetObjectKind().GroupVersionKind().Kind; kind != "ConfigMap" || !userOwned[obj.GetName()] {
		_, err := a.Apply(ctx, obj)
		return err
	}
	u, err := kubeapply.ToUnstructured(obj)
	if err != nil {
		return err
	}
	k, _ := kubeapply.KindOf(kinds, "ConfigMap")
	_, err = a.Resource(k, u.GetNamespace()).Create(ctx, u, metav1.CreateOptions{FieldManager: kubeapply.FieldManager})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating ConfigMap %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return nil
}
