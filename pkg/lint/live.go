package lint

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/gmsa"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/windows"
)

// TargetFromLive reads a live cluster's node inventory (labels,
// taints, runtime, Windows build), its RuntimeClasses and its version.
// The network mode and DSR cannot be read from the API, so they stay
// unknown. Its GMSACredentialSpecs and RBAC objects are read for the
// GMSA checks when the credentials allow.
func TargetFromLive(ctx context.Context, cfg *rest.Config) (*Target, error) {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating client for %s: %w", cfg.Host, err)
	}
	version, err := client.Discovery().ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("reading the server version from %s: %w", cfg.Host, err)
	}
	minor, err := kubeversion.ServerMinor(version.Major, version.Minor)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", cfg.Host, err)
	}
	t := &Target{Name: cfg.Host, Minor: minor, AllowPrivileged: true, RuntimeClasses: map[string]*nodev1.RuntimeClass{}}
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing nodes of %s: %w", cfg.Host, err)
	}
	for i := range nodes.Items {
		t.Nodes = append(t.Nodes, nodeFromLive(&nodes.Items[i]))
	}
	rcs, err := client.NodeV1().RuntimeClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing RuntimeClasses of %s: %w", cfg.Host, err)
	}
	for i := range rcs.Items {
		t.RuntimeClasses[rcs.Items[i].Name] = &rcs.Items[i]
	}
	// Without read access to them, GMSA checks fall back to the input.
	if specs, rbac, err := gmsa.ReadObjects(ctx, client); err == nil {
		t.GMSA = &gmsa.Objects{Specs: specs, RBAC: rbac, HasRBAC: true}
	}
	return t, nil
}

// nodeFromLive reads what placement needs from a Node: its facts from
// the rule book (windows.HostOf), its labels and taints as they are. An
// unschedulable node gets the taint the scheduler adds for it.
func nodeFromLive(n *corev1.Node) *Node {
	h := windows.HostOf(n)
	out := &Node{Name: n.Name, OS: h.OS, Arch: h.Arch, Build: h.Build, Runtime: h.Runtime, Obj: n.DeepCopy()}
	if n.Spec.Unschedulable {
		out.Obj.Spec.Taints = append(out.Obj.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
	}
	return out
}
