// Package network is the Windows data-plane model: from the API objects a
// real cluster keeps its network configuration in, it computes what flannel,
// the CNI plugins and kube-proxy (winkernel) would have programmed on every
// Windows node, and what Linux nodes do for reachability. It is pure: a
// Snapshot in, a Model out, no I/O but Read.
package network

import (
	"net/netip"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/winkube/winkube/pkg/network/hns"
	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

// Snapshot is everything the model reads, as listed from the API.
type Snapshot struct {
	Nodes          []*corev1.Node
	Pods           []*corev1.Pod
	Services       []*corev1.Service
	EndpointSlices []*discoveryv1.EndpointSlice
	// ServiceCIDRs are networking.k8s.io ServiceCIDR objects (the service
	// subnet of PLAN-1); empty on clusters that predate them.
	ServiceCIDRs []*networkingv1.ServiceCIDR
	// ConfigMaps and DaemonSets of kube-system: kube-flannel-cfg
	// (net-conf.json) and the Windows kube-proxy DaemonSet's flags.
	ConfigMaps []*corev1.ConfigMap
	DaemonSets []*appsv1.DaemonSet
	// K8sMinor is the cluster's Kubernetes minor version (LIM-11, KP-2).
	K8sMinor int
}

// Flannel is the cluster's flannel configuration (net-conf.json).
type Flannel struct {
	// Found is false when kube-flannel-cfg does not exist; the model then
	// uses what the nodes' flannel annotations say.
	Found   bool         `json:"found"`
	Network netip.Prefix `json:"network"`
	Backend string       `json:"backend"` // "vxlan" or "host-gw"
	VNI     int          `json:"vni,omitempty"`
	Port    int          `json:"port,omitempty"`
}

// Cluster holds the cluster-wide network settings.
type Cluster struct {
	ClusterCIDR   netip.Prefix    `json:"clusterCIDR"`
	ServiceCIDR   netip.Prefix    `json:"serviceCIDR"`
	DNSServiceIP  netip.Addr      `json:"dnsServiceIP"`
	ClusterDomain string          `json:"clusterDomain"`
	Flannel       Flannel         `json:"flannel"`
	Findings      []rules.Finding `json:"findings,omitempty"`
}

// Proxy is the kube-proxy configuration a Windows node runs with, read
// from the Windows kube-proxy DaemonSet's flags.
type Proxy struct {
	// Found is false when no kube-proxy runs on the node: it then programs
	// no load balancers at all.
	Found            bool            `json:"found"`
	Mode             string          `json:"mode,omitempty"` // "kernelspace" on Windows
	NetworkName      string          `json:"networkName,omitempty"`
	EnableDSR        bool            `json:"enableDSR,omitempty"`
	FeatureGates     map[string]bool `json:"featureGates,omitempty"`
	SourceVIP        netip.Addr      `json:"sourceVIP,omitzero"`
	HostnameOverride string          `json:"hostnameOverride,omitempty"`
	// Running is false when the flags make kube-proxy exit at start
	// (KP-1, KP-2); Findings say why.
	Running bool `json:"running"`
	// DaemonSet is the kube-system DaemonSet the flags were read from.
	DaemonSet string `json:"daemonSet,omitempty"`
}

// Node is one node's network: its settings and, on Windows, the HNS state.
type Node struct {
	Name       string        `json:"name"`
	OS         string        `json:"os"` // "windows" or "linux"
	Build      windows.Build `json:"build,omitzero"`
	InternalIP netip.Addr    `json:"internalIP"`
	PodCIDR    netip.Prefix  `json:"podCIDR,omitzero"`
	// Mode is "overlay" or "l2bridge" on Windows nodes (NET-1), "" on Linux.
	Mode  string    `json:"mode,omitempty"`
	Proxy Proxy     `json:"proxy"`
	HNS   hns.State `json:"hns"`
	// SubnetEnv is /run/flannel/subnet.env as flanneld writes it (NET-8).
	SubnetEnv string `json:"subnetEnv,omitempty"`
	// CNIConfig is the node's CNI network config (JSON) (NET-4, NET-5, NET-7).
	CNIConfig string `json:"cniConfig,omitempty"`
	// FlannelAnnotations are the node annotations flanneld sets.
	FlannelAnnotations map[string]string `json:"flannelAnnotations,omitempty"`
	Findings           []rules.Finding   `json:"findings,omitempty"`
}

// Model is the whole cluster's network.
type Model struct {
	Cluster  Cluster   `json:"cluster"`
	Nodes    []*Node   `json:"nodes"` // sorted by name
	Snapshot *Snapshot `json:"-"`
}
