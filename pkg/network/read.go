package network

import (
	"context"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/kubeversion"
)

// Read lists everything the model needs from the API server. ServiceCIDR
// objects are optional: clusters that predate networking.k8s.io/v1
// ServiceCIDR (or forbid listing them) simply have none.
func Read(ctx context.Context, c kubernetes.Interface) (*Snapshot, error) {
	s := &Snapshot{}
	all := metav1.ListOptions{}
	nodes, err := c.CoreV1().Nodes().List(ctx, all)
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	for i := range nodes.Items {
		s.Nodes = append(s.Nodes, &nodes.Items[i])
	}
	pods, err := c.CoreV1().Pods("").List(ctx, all)
	if err != nil {
		return nil, fmt.Errorf("list pods: %w", err)
	}
	for i := range pods.Items {
		s.Pods = append(s.Pods, &pods.Items[i])
	}
	svcs, err := c.CoreV1().Services("").List(ctx, all)
	if err != nil {
		return nil, fmt.Errorf("list services: %w", err)
	}
	for i := range svcs.Items {
		s.Services = append(s.Services, &svcs.Items[i])
	}
	if err := readMore(ctx, c, s); err != nil {
		return nil, err
	}
	s.sort()
	return s, nil
}

// readMore lists EndpointSlices, ServiceCIDRs, kube-system ConfigMaps and
// DaemonSets and the server version.
func readMore(ctx context.Context, c kubernetes.Interface, s *Snapshot) error {
	all := metav1.ListOptions{}
	slices, err := c.DiscoveryV1().EndpointSlices("").List(ctx, all)
	if err != nil {
		return fmt.Errorf("list endpointslices: %w", err)
	}
	for i := range slices.Items {
		s.EndpointSlices = append(s.EndpointSlices, &slices.Items[i])
	}
	cidrs, err := c.NetworkingV1().ServiceCIDRs().List(ctx, all)
	switch {
	case err == nil:
		for i := range cidrs.Items {
			s.ServiceCIDRs = append(s.ServiceCIDRs, &cidrs.Items[i])
		}
	case !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err):
		return fmt.Errorf("list servicecidrs: %w", err)
	}
	cms, err := c.CoreV1().ConfigMaps(kubeSystem).List(ctx, all)
	if err != nil {
		return fmt.Errorf("list configmaps in kube-system: %w", err)
	}
	for i := range cms.Items {
		s.ConfigMaps = append(s.ConfigMaps, &cms.Items[i])
	}
	// Newer flannel manifests keep kube-flannel-cfg in their own namespace.
	flannel, err := c.CoreV1().ConfigMaps("kube-flannel").List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + flannelConfigMap})
	switch {
	case err == nil:
		for i := range flannel.Items {
			s.ConfigMaps = append(s.ConfigMaps, &flannel.Items[i])
		}
	case !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err):
		return fmt.Errorf("list configmaps in kube-flannel: %w", err)
	}
	dss, err := c.AppsV1().DaemonSets(kubeSystem).List(ctx, all)
	if err != nil {
		return fmt.Errorf("list daemonsets in kube-system: %w", err)
	}
	for i := range dss.Items {
		s.DaemonSets = append(s.DaemonSets, &dss.Items[i])
	}
	v, err := c.Discovery().ServerVersion()
	if err != nil {
		return fmt.Errorf("get server version: %w", err)
	}
	// An unreadable version leaves the minor 0 (unknown), as before.
	s.K8sMinor, _ = kubeversion.ServerMinor(v.Major, v.Minor)
	return nil
}

const kubeSystem = "kube-system"

// sort orders every list by namespace and name, so the model does not
// depend on the order the API server answered in.
func (s *Snapshot) sort() {
	sortBy(s.Nodes, func(i int) string { return s.Nodes[i].Name })
	sortBy(s.Pods, func(i int) string { return s.Pods[i].Namespace + "/" + s.Pods[i].Name })
	sortBy(s.Services, func(i int) string { return s.Services[i].Namespace + "/" + s.Services[i].Name })
	sortBy(s.EndpointSlices, func(i int) string { return s.EndpointSlices[i].Namespace + "/" + s.EndpointSlices[i].Name })
	sortBy(s.ServiceCIDRs, func(i int) string { return s.ServiceCIDRs[i].Name })
	sortBy(s.ConfigMaps, func(i int) string { return s.ConfigMaps[i].Namespace + "/" + s.ConfigMaps[i].Name })
	sortBy(s.DaemonSets, func(i int) string { return s.DaemonSets[i].Namespace + "/" + s.DaemonSets[i].Name })
}

func sortBy[T any](list []T, key func(int) string) {
	keys := make([]string, len(list))
	for i := range list {
		keys[i] = key(i)
	}
	idx := make([]int, len(list))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	sorted := make([]T, len(list))
	for i, j := range idx {
		sorted[i] = list[j]
	}
	copy(list, sorted)
}
