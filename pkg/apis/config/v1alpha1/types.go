// Package v1alpha1 is the winkube cluster config file: the node pools and the
// network of a mixed Linux/Windows cluster. One file feeds `winkube up`,
// `winkube nodes` and the linter's idea of the target cluster.
package v1alpha1

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Group and version of the config file.
const (
	APIVersion = "winkube.io/v1alpha1"
	Kind       = "Cluster"
)

// OS names, as in the kubernetes.io/os label.
const (
	OSLinux   = "linux"
	OSWindows = "windows"
)

// Container runtimes a pool can run (KLT-10).
const (
	RuntimeContainerd = "containerd"
	RuntimeDocker     = "docker"
)

// Network modes of the Windows data plane (NET-1).
const (
	ModeOverlay  = "overlay"
	ModeL2Bridge = "l2bridge"
)

// Cluster is the whole config file.
type Cluster struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Name prefixes nothing today; it names the cluster in kubeconfigs and output.
	Name      string     `json:"name,omitempty"`
	Network   Network    `json:"network,omitempty"`
	NodePools []NodePool `json:"nodePools,omitempty"`
}

// Network holds the three address spaces of PLAN-1 plus the host network
// and the pool LoadBalancer Services take their addresses from.
type Network struct {
	Mode           string `json:"mode,omitempty"`
	ClusterCIDR    string `json:"clusterCIDR,omitempty"`
	ServiceCIDR    string `json:"serviceCIDR,omitempty"`
	DNSServiceIP   string `json:"dnsServiceIP,omitempty"`
	ManagementCIDR string `json:"managementCIDR,omitempty"`
	// LoadBalancerCIDR is the pool of status.loadBalancer.ingress addresses
	// handed to LoadBalancer Services, as MetalLB or cloud-provider-kind
	// would; its network and broadcast addresses are never handed out.
	LoadBalancerCIDR string `json:"loadBalancerCIDR,omitempty"`
	// NodeCIDRMaskSize is the prefix length of each node's pod subnet.
	NodeCIDRMaskSize int `json:"nodeCIDRMaskSize,omitempty"`
	// EnableDSR says kube-proxy runs with --enable-dsr (LIM-12, KP-2).
	EnableDSR bool `json:"enableDSR,omitempty"`
}

// LoadBalancerPool parses LoadBalancerCIDR, the pool of LoadBalancer
// Service addresses.
func (n *Network) LoadBalancerPool() (netip.Prefix, error) {
	p, err := netip.ParsePrefix(n.LoadBalancerCIDR)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("network.loadBalancerCIDR: %w", err)
	}
	return p, nil
}

// NodePool is a group of identical emulated nodes.
type NodePool struct {
	Name string `json:"name"`
	OS   string `json:"os"`
	// Release names a Windows Server release ("2019", "ltsc2022", "1809",
	// "20H2"); Build gives it as a version ("10.0.17763" or with UBR
	// "10.0.17763.5329"). Windows pools set one of them.
	Release string `json:"release,omitempty"`
	Build   string `json:"build,omitempty"`
	Count   *int   `json:"count,omitempty"`
	// CPU is the number of cores; it is also the cpuCount of KLT-5.
	CPU            int                 `json:"cpu,omitempty"`
	Memory         *resource.Quantity  `json:"memory,omitempty"`
	MaxPods        int                 `json:"maxPods,omitempty"`
	Runtime        string              `json:"runtime,omitempty"`
	Labels         map[string]string   `json:"labels,omitempty"`
	Taints         []corev1.Taint      `json:"taints,omitempty"`
	KubeReserved   corev1.ResourceList `json:"kubeReserved,omitempty"`
	SystemReserved corev1.ResourceList `json:"systemReserved,omitempty"`
	EvictionHard   map[string]string   `json:"evictionHard,omitempty"`
	// PauseImage is the runtime's sandbox image (IMG-5). It must have an
	// entry for the node's OS and Windows build, or every pod on the node
	// stays ContainerCreating (TS-11).
	PauseImage string `json:"pauseImage,omitempty"`
}

// Replicas is the pool's node count after defaulting.
func (p *NodePool) Replicas() int {
	if p.Count == nil {
		return 0
	}
	return *p.Count
}

// IsWindows reports whether the pool runs Windows Server nodes.
func (p *NodePool) IsWindows() bool { return p.OS == OSWindows }

// NodeCount is the number of nodes over all pools.
func (c *Cluster) NodeCount() int {
	n := 0
	for i := range c.NodePools {
		n += c.NodePools[i].Replicas()
	}
	return n
}
