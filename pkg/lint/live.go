package lint

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/windows"
)

// TargetFromKubeconfig reads a live cluster's node inventory (labels,
// taints, runtime, Windows build), its RuntimeClasses and its version.
// The network mode and DSR cannot be read from the API, so they stay
// unknown.
func TargetFromKubeconfig(ctx context.Context, kubeconfig string) (*Target, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("reading kubeconfig %s: %w", kubeconfig, err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating client from %s: %w", kubeconfig, err)
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
	return t, nil
}

// nodeFromLive reads what placement needs from a Node. The OS and arch
// come from the labels, falling back to nodeInfo; the Windows build from
// the windows-build label, falling back to the kernel version (KLT-1).
// An unschedulable node gets the taint the scheduler adds for it.
func nodeFromLive(n *corev1.Node) *Node {
	info := n.Status.NodeInfo
	out := &Node{
		Name:    n.Name,
		OS:      firstNonEmpty(n.Labels[corev1.LabelOSStable], n.Labels[labelBetaOS], info.OperatingSystem),
		Arch:    firstNonEmpty(n.Labels[corev1.LabelArchStable], n.Labels[labelBetaArch], info.Architecture),
		Runtime: runtimeName(info.ContainerRuntimeVersion),
		Obj:     n.DeepCopy(),
	}
	if out.IsWindows() {
		for _, v := range []string{n.Labels[corev1.LabelWindowsBuild], info.KernelVersion} {
			if b, err := windows.ParseBuild(v); err == nil {
				out.Build = b
				break
			}
		}
	}
	if n.Spec.Unschedulable {
		out.Obj.Spec.Taints = append(out.Obj.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
	}
	return out
}

// runtimeName turns "containerd://1.7.2" into "containerd".
func runtimeName(version string) string {
	name, _, _ := strings.Cut(version, "://")
	return name
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
