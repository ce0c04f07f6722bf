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
	Name string `json:"name,omitempty"`
	// KubernetesVersion is the release the cluster runs, such as v1.27.16
	// (the emulated control plane's, by default). `winkube plan` picks the
	// supported Windows releases (VER-1), pause images (IMG-5), kubelet
	// flags (PLAN-4) and kube-proxy feature gates (KP-2) by it.
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// ControlPlaneEndpoint is host:port of the API server real nodes join
	// (kubeadm join, the kubeconfig the seed copies to C:\k).
	ControlPlaneEndpoint string     `json:"controlPlaneEndpoint,omitempty"`
	Network              Network    `json:"network,omitempty"`
	NodePools            []NodePool `json:"nodePools,omitempty"`
	// Proxy is the HTTP proxy real Windows nodes sit behind (PLAN-7, TS-14).
	Proxy *Proxy `json:"proxy,omitempty"`
	// ControlPlane overrides upstream flags of the emulated control plane,
	// per component (kube-apiserver, kube-scheduler,
	// kube-controller-manager) and flag name, over the values winkube sizes
	// from the node count.
	ControlPlane map[string]ComponentFlags `json:"controlPlane,omitempty"`
	// ActiveDirectory is the domain the emulated Windows nodes are joined
	// to, which GMSA credential specs name (DomainJoinConfig.DnsName);
	// absent: DefaultDomain.
	ActiveDirectory *ActiveDirectory `json:"activeDirectory,omitempty"`
	// Images tell what images offer when neither the built-in catalog
	// nor a registry this machine reaches can (IMG-3). `winkube up`
	// stores them in the data dir beside what `winkube image import`
	// stored, where the node agents, lint, webhook, doctor and `winkube
	// image` read them.
	Images []Image `json:"images,omitempty"`
}

// Image is what one image offers.
type Image struct {
	// Image is the reference, as pods name it.
	Image string `json:"image"`
	// Platforms are the image index's entries, or a single image's one
	// platform.
	Platforms []ImagePlatform `json:"platforms"`
	// Single marks a single-platform image (one manifest, no index), as
	// `docker push` leaves an image built on a Windows host: containerd
	// then pulls it on any host and it fails at start (IMG-4).
	Single bool `json:"single,omitempty"`
	// Entrypoint and Cmd are the image config's, for the emulated nodes
	// to run when the pod sets no command.
	Entrypoint []string `json:"entrypoint,omitempty"`
	Cmd        []string `json:"cmd,omitempty"`
}

// ImagePlatform is one platform of an image, as an OCI index entry's.
type ImagePlatform struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
	// OSVersion is a Windows entry's os.version (10.0.20348.2227); an
	// entry without one runs on every Windows build.
	OSVersion  string   `json:"osVersion,omitempty"`
	OSFeatures []string `json:"osFeatures,omitempty"`
}

// ActiveDirectory is the cluster's emulated Active Directory domain.
type ActiveDirectory struct {
	// Domain is the domain's DNS name (contoso.com).
	Domain string `json:"domain"`
	// NetBIOSName is its NetBIOS name; empty: the first label of Domain,
	// upper-cased and cut to 15 characters (CONTOSO).
	NetBIOSName string `json:"netBIOSName,omitempty"`
}

// Proxy holds the proxy variables a node behind a proxy needs at machine
// scope (PLAN-7).
type Proxy struct {
	HTTPProxy  string `json:"httpProxy,omitempty"`
	HTTPSProxy string `json:"httpsProxy,omitempty"`
	// NoProxy is a comma-separated list of hosts and CIDRs reached directly.
	NoProxy string `json:"noProxy,omitempty"`
}

// Flannel backends (NET-2, NET-3): vxlan goes with the overlay mode and
// host-gw with l2bridge.
const (
	BackendVXLAN  = "vxlan"
	BackendHostGW = "host-gw"
)

// Flannel is the flannel backend of net-conf.json. Backend defaults from
// network.mode; VNI and Port default to the seeds' 4096 and 4789 on vxlan.
type Flannel struct {
	Backend string `json:"backend,omitempty"`
	VNI     int    `json:"vni,omitempty"`
	Port    int    `json:"port,omitempty"`
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
	// `winkube up` serves the addresses of a pool inside 127.0.0.0/8 on the
	// host's loopback; those of any other pool are assigned but reach
	// nothing.
	LoadBalancerCIDR string `json:"loadBalancerCIDR,omitempty"`
	// NodeCIDRMaskSize is the prefix length of each node's pod subnet.
	NodeCIDRMaskSize int `json:"nodeCIDRMaskSize,omitempty"`
	// EnableDSR says kube-proxy runs with --enable-dsr (LIM-12, KP-2).
	EnableDSR bool `json:"enableDSR,omitempty"`
	// Flannel is the CNI backend Linux and Windows flannel share.
	Flannel Flannel `json:"flannel,omitempty"`
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
	// Nodes names the pool's machines when they are real ones (or the
	// emulated ones should look like them): name, management IP and
	// interface. When set, count defaults to its length and must equal it.
	Nodes []PoolNode `json:"nodes,omitempty"`
}

// PoolNode is one machine of a pool, as `winkube plan` joins it.
type PoolNode struct {
	// Name is the node name; kubelet and kube-proxy register with it
	// (--hostname-override, KP-8). Default <pool>-<n>.
	Name string `json:"name,omitempty"`
	// ManagementIP is the node's address on the management network
	// (start.ps1 -ManagementIP, PLAN-3). Default: the next free address.
	ManagementIP string `json:"managementIP,omitempty"`
	// InterfaceName is the host network adapter (start.ps1 -InterfaceName,
	// PLAN-3); default Ethernet on Windows.
	InterfaceName string `json:"interfaceName,omitempty"`
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
