package cluster

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

// poolPlan is what an `up` does to the nodes of an existing cluster whose
// config changed.
type poolPlan struct {
	// removed are the nodes the cluster ran before that the new config no
	// longer has; they are deleted from the API. (Only those: nodes that
	// `winkube nodes` joined from elsewhere are not this config's to delete.)
	removed []string
	// replaced nodes keep their name but run another OS or Windows build:
	// their pods are deleted with them, since they were placed for the old
	// one, and the node registers anew.
	replaced []string
}

// fixedFields are the settings a running cluster cannot change: existing
// pod subnets, Service addresses and node addresses were handed out from
// them.
var fixedFields = []struct {
	path string
	get  func(*v1alpha1.Network) string
}{
	{"network.clusterCIDR", func(n *v1alpha1.Network) string { return n.ClusterCIDR }},
	{"network.nodeCIDRMaskSize", func(n *v1alpha1.Network) string { return fmt.Sprint(n.NodeCIDRMaskSize) }},
	{"network.serviceCIDR", func(n *v1alpha1.Network) string { return n.ServiceCIDR }},
	{"network.dnsServiceIP", func(n *v1alpha1.Network) string { return n.DNSServiceIP }},
	{"network.managementCIDR", func(n *v1alpha1.Network) string { return n.ManagementCIDR }},
}

// planPools compares the config a data dir last ran (saved, nil for a new
// cluster) with cfg, refuses what cannot change, and fixes cfg's node
// addresses so that no node that stays moves and no new node takes a held
// address.
func planPools(saved, cfg *v1alpha1.Cluster, dir string) (*poolPlan, error) {
	plan := &poolPlan{}
	var previous []v1alpha1.Node
	if saved != nil {
		if err := checkFixed(saved, cfg, dir); err != nil {
			return nil, err
		}
		previous = saved.Nodes()
	}
	if err := cfg.KeepAddresses(previous); err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	kinds := map[string]string{}
	for _, n := range previous {
		kinds[n.Name] = nodeKind(n.Pool)
	}
	for _, n := range cfg.Nodes() {
		if k, ok := kinds[n.Name]; ok && k != nodeKind(n.Pool) {
			plan.replaced = append(plan.replaced, n.Name)
		}
		delete(kinds, n.Name)
	}
	for name := range kinds {
		plan.removed = append(plan.removed, name)
	}
	sort.Strings(plan.removed)
	return plan, nil
}

func checkFixed(saved, cfg *v1alpha1.Cluster, dir string) error {
	var changed []string
	for _, f := range fixedFields {
		was, now := f.get(&saved.Network), f.get(&cfg.Network)
		if was != now {
			changed = append(changed, fmt.Sprintf("%s changed from %s to %s", f.path, was, now))
		}
	}
	if len(changed) == 0 {
		return nil
	}
	return fmt.Errorf("--config: %s, but the cluster in %s runs with the old value (its pod subnets, Service and node addresses come from it); keep the old value, or delete the cluster with `winkube down` first",
		strings.Join(changed, "; "), dir)
}

// nodeKind is what a node runs: its OS and Windows build.
func nodeKind(p *v1alpha1.NodePool) string {
	if b, err := p.WindowsBuild(); err == nil && p.IsWindows() {
		return fmt.Sprintf("%s/%d", p.OS, b.Build)
	}
	return p.OS
}

// removeStaleNodes deletes the nodes the config no longer has, before the
// agent registers the others. Their pods are then garbage-collected by
// kube-controller-manager's pod GC, as for any deleted node. A replaced
// node loses its pods at once, so that their controllers place them again
// on the node it has become.
func (c *Cluster) removeStaleNodes(ctx context.Context, client kubernetes.Interface, plan *poolPlan) error {
	for _, name := range plan.removed {
		if existed, err := deleteNode(ctx, client, name); err != nil || !existed {
			if err != nil {
				return err
			}
			continue
		}
		c.say("Removed node %s: the config no longer has it (its pods are garbage-collected by kube-controller-manager).", name)
	}
	for _, name := range plan.replaced {
		if err := deletePodsOn(ctx, client, name); err != nil {
			return err
		}
		if _, err := deleteNode(ctx, client, name); err != nil {
			return err
		}
		c.say("Replaced node %s: its pool now runs another OS or Windows build (its pods were deleted for their controllers to place again).", name)
	}
	return nil
}

// deleteNode deletes a node and reports whether it existed.
func deleteNode(ctx context.Context, client kubernetes.Interface, name string) (bool, error) {
	err := client.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("deleting node %s: %w", name, err)
	}
	return true, nil
}

// deletePodsOn force-deletes the pods bound to a node, as the pod GC does
// for a node that is gone: no kubelet runs there to confirm termination.
func deletePodsOn(ctx context.Context, client kubernetes.Interface, nodeName string) error {
	sel := fields.OneTermEqualSelector("spec.nodeName", nodeName).String()
	pods, err := client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		return fmt.Errorf("listing the pods of node %s: %w", nodeName, err)
	}
	zero := int64(0)
	for _, p := range pods.Items {
		if p.Spec.NodeName != nodeName {
			continue
		}
		err := client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting pod %s/%s of node %s: %w", p.Namespace, p.Name, nodeName, err)
		}
	}
	return nil
}
