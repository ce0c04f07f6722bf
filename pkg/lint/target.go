package lint

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/gmsa"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/windows"
	"github.com/winkube/winkube/pkg/windows/kubelet"
)

// Beta OS and arch labels; the kubelet still sets them (SCH-1) and the seeds
// select on them.
const (
	labelBetaOS   = windows.LabelOSBeta
	labelBetaArch = windows.LabelArchBeta
)

// Target is the cluster the manifests are meant for: its nodes, network and
// Kubernetes version. It is computed once per run.
type Target struct {
	// Name names the cluster in messages.
	Name string
	// Minor is the Kubernetes minor version (27 for 1.27).
	Minor int
	// NetworkMode is the Windows data-plane mode (overlay or l2bridge);
	// empty when unknown (live clusters).
	NetworkMode string
	// DSR says kube-proxy on Windows runs with --enable-dsr; DSRKnown is
	// false when that cannot be told (live clusters).
	DSR, DSRKnown bool
	// AllowPrivileged mirrors the API server's --allow-privileged (API-6).
	AllowPrivileged bool
	// Nodes are the nodes pods can be placed on.
	Nodes []*Node
	// RuntimeClasses are those the cluster already has (live clusters);
	// RuntimeClasses in the input are added per run.
	RuntimeClasses map[string]*nodev1.RuntimeClass
	// GMSA is the live cluster's GMSACredentialSpecs and RBAC objects
	// (nil when no cluster was read, or they could not be), which the
	// windows-gmsa webhook answers from.
	GMSA *gmsa.Objects
}

// Node is one node as the scheduler and kubelet see it.
type Node struct {
	Name string
	// Pool is the config file's node pool, empty for live nodes.
	Pool    string
	OS      string
	Arch    string
	Build   windows.Build // zero for Linux nodes and unknown builds
	Runtime string        // "containerd" or "docker"
	// Obj carries labels and taints for the upstream matching helpers.
	Obj *corev1.Node
}

// Host is the node as the rule book reads it.
func (n *Node) Host() windows.Host {
	return windows.Host{Name: n.Name, OS: n.OS, Arch: n.Arch, Build: n.Build, Runtime: n.Runtime}
}

// IsWindows reports whether the node runs Windows.
func (n *Node) IsWindows() bool { return n.OS == v1alpha1.OSWindows }

// Describe renders "win2019-1 (windows 10.0.17763)" (windows.Host.Describe).
func (n *Node) Describe() string { return n.Host().Describe() }

// HasWindows reports whether any node runs Windows.
func (t *Target) HasWindows() bool {
	for _, n := range t.Nodes {
		if n.IsWindows() {
			return true
		}
	}
	return false
}

// Mixed reports whether the cluster has both Linux and Windows nodes.
func (t *Target) Mixed() bool {
	var win, lin bool
	for _, n := range t.Nodes {
		if n.IsWindows() {
			win = true
		} else {
			lin = true
		}
	}
	return win && lin
}

// TargetFromCluster expands a config file's pools into nodes labelled and
// tainted the way winkube's nodes register (SCH-1, SCH-3), for the
// Kubernetes version winkube runs (kubeversion.DefaultMinor).
func TargetFromCluster(c *v1alpha1.Cluster) (*Target, error) {
	return TargetFromClusterAt(c, kubeversion.DefaultMinor)
}

// TargetFromClusterAt is TargetFromCluster for Kubernetes 1.<minor>, whose
// kubelets may not set every label (windows-build needs 1.17).
func TargetFromClusterAt(c *v1alpha1.Cluster, minor int) (*Target, error) {
	t := &Target{
		Name:            c.Name,
		Minor:           minor,
		NetworkMode:     c.Network.Mode,
		DSR:             c.Network.EnableDSR,
		DSRKnown:        true,
		AllowPrivileged: true,
	}
	for _, cn := range c.Nodes() {
		n, err := nodeFromPool(cn.Name, cn.Pool, t.Minor)
		if err != nil {
			return nil, err
		}
		t.Nodes = append(t.Nodes, n)
	}
	return t, nil
}

// labelPool is the label winkube's nodes carry with their pool's name.
const labelPool = annotations.LabelPool

// nodeFromPool builds the node a pool's member registers as: the pool's
// labels, then the kubelet's own (SCH-1, with the beta labels the kubelet
// still sets), the hostname and winkube.io/pool, and the pool's taints.
func nodeFromPool(name string, p *v1alpha1.NodePool, minor int) (*Node, error) {
	n := &Node{Name: name, Pool: p.Name, OS: p.OS, Arch: "amd64", Runtime: p.Runtime}
	if p.IsWindows() {
		b, err := poolBuild(p)
		if err != nil {
			return nil, err
		}
		n.Build = b
	}
	labels := map[string]string{}
	for k, v := range p.Labels {
		labels[k] = v
	}
	for k, v := range kubelet.NodeLabels(p.OS, n.Arch, n.Build, minor, true) {
		labels[k] = v
	}
	labels[corev1.LabelHostname] = name
	labels[labelPool] = p.Name
	n.Obj = &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{Taints: append([]corev1.Taint(nil), p.Taints...)},
	}
	return n, nil
}

// poolBuild resolves a Windows pool's build from Build or Release.
func poolBuild(p *v1alpha1.NodePool) (windows.Build, error) {
	if p.Build != "" {
		b, err := windows.ParseBuild(p.Build)
		if err != nil {
			return windows.Build{}, fmt.Errorf("node pool %s: %w", p.Name, err)
		}
		return b, nil
	}
	r, ok := windows.ReleaseByName(p.Release)
	if !ok {
		return windows.Build{}, fmt.Errorf("node pool %s: unknown Windows release %q", p.Name, p.Release)
	}
	return r.Version(), nil
}
