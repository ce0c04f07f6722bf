// Package hns holds what the Windows Host Networking Service stores for a
// node: networks, endpoints and load balancers, in the field names Windows
// admins read in `Get-HnsNetwork | ConvertTo-Json`, `Get-HnsEndpoint` and
// `hnsdiag list loadbalancers`. The network model fills these; nothing here
// talks to a real HNS.
package hns

// Network types (NET-1). Kubernetes uses Overlay (win-overlay, flannel
// vxlan) and L2Bridge (win-bridge, flannel host-gw).
const (
	TypeOverlay  = "Overlay"
	TypeL2Bridge = "L2Bridge"
)

// Policy types that appear on networks, subnets and endpoints.
const (
	PolicyOutBoundNAT = "OutBoundNAT" // SNAT to the host IP, minus ExceptionList (NET-6)
	PolicyVSID        = "VSID"        // the VXLAN network ID of an overlay subnet (NET-2)
	PolicyRoute       = "ROUTE"       // a route, with NeedEncap on overlay
	PolicyPA          = "PA"          // the provider (host) address of a remote endpoint (KP-4)
	// PolicyRemoteSubnetRoute is what flanneld adds to an overlay network
	// for every other node's lease: its pod subnet behind its address.
	PolicyRemoteSubnetRoute = "RemoteSubnetRoute"
)

// Policy is one HNS policy. Only the fields of its Type are set.
type Policy struct {
	Type              string   `json:"Type"`
	ExceptionList     []string `json:"ExceptionList,omitempty"`
	VSID              int      `json:"VSID,omitempty"`
	DestinationPrefix string   `json:"DestinationPrefix,omitempty"`
	NeedEncap         bool     `json:"NeedEncap,omitempty"`
	PA                string   `json:"PA,omitempty"`
	// RemoteSubnetRoute: the remote node's address and VTEP MAC.
	ProviderAddress             string `json:"ProviderAddress,omitempty"`
	DistributedRouterMacAddress string `json:"DistributedRouterMacAddress,omitempty"`
	IsolationID                 int    `json:"IsolationId,omitempty"`
}

// Subnet is one address prefix of a network.
type Subnet struct {
	AddressPrefix  string   `json:"AddressPrefix"`
	GatewayAddress string   `json:"GatewayAddress"`
	Policies       []Policy `json:"Policies,omitempty"`
}

// Network is an HNS network (Get-HnsNetwork).
type Network struct {
	ID           string   `json:"ID"`
	Name         string   `json:"Name"`
	Type         string   `json:"Type"`
	ManagementIP string   `json:"ManagementIP,omitempty"`
	DrMacAddress string   `json:"DrMacAddress,omitempty"`
	Subnets      []Subnet `json:"Subnets"`
	Policies     []Policy `json:"Policies,omitempty"`
}

// Endpoint is an HNS endpoint (Get-HnsEndpoint): a local pod's vNIC, the
// host's own endpoint, or a remote endpoint kube-proxy creates for a
// backend on another node (KP-4).
type Endpoint struct {
	ID                 string   `json:"ID"`
	Name               string   `json:"Name"`
	VirtualNetwork     string   `json:"VirtualNetwork"` // the network's ID
	VirtualNetworkName string   `json:"VirtualNetworkName"`
	IPAddress          string   `json:"IPAddress"`
	PrefixLength       int      `json:"PrefixLength,omitempty"`
	MacAddress         string   `json:"MacAddress"`
	GatewayAddress     string   `json:"GatewayAddress,omitempty"`
	IsRemoteEndpoint   bool     `json:"IsRemoteEndpoint"`
	Policies           []Policy `json:"Policies,omitempty"`
	// Not HNS fields: what the endpoint belongs to, for people reading it.
	// Pod is "namespace/name" of a local pod; Host marks the node's own
	// endpoint (the gateway or source VIP); Node is the node a remote
	// endpoint lives on.
	Pod  string `json:"Pod,omitempty"`
	Host bool   `json:"Host,omitempty"`
	Node string `json:"Node,omitempty"`
}

// Protocol numbers of load balancer port mappings (KP-3).
const (
	ProtocolTCP  = 6
	ProtocolUDP  = 17
	ProtocolSCTP = 132
)

// Load balancer kinds: which part of a Service a load balancer serves (KP-3).
const (
	KindClusterIP    = "ClusterIP"
	KindNodePort     = "NodePort"
	KindExternalIP   = "ExternalIP"
	KindLoadBalancer = "LoadBalancerIngress"
)

// Distribution of a load balancer: none, or by source IP for
// sessionAffinity ClientIP (KP-5).
const (
	DistributionNone     = "None"
	DistributionSourceIP = "SourceIP"
)

// LoadBalancer is one HNS load balancer as kube-proxy's winkernel mode
// programs it for one Service port (KP-3), in hcn's v2 shape.
type LoadBalancer struct {
	ID           string   `json:"ID"`
	FrontendVIPs []string `json:"FrontendVIPs"` // empty for NodePort
	SourceVIP    string   `json:"SourceVIP,omitempty"`
	Protocol     int      `json:"Protocol"`
	InternalPort int      `json:"InternalPort"` // the target port
	ExternalPort int      `json:"ExternalPort"` // the service port, or the node port
	// Endpoints are the IDs of the endpoints (local or remote) it sends to.
	Endpoints []string `json:"HostComputeEndpoints"`
	// Flags.
	DSR            bool   `json:"DSR,omitempty"`            // LoadBalancerFlags DSR (KP-5)
	IPv6           bool   `json:"IPv6,omitempty"`           // LoadBalancerFlags IPv6
	ILB            bool   `json:"ILB,omitempty"`            // internal (ClusterIP) load balancer
	LocalRoutedVIP bool   `json:"LocalRoutedVIP,omitempty"` // NodePort: also for traffic to the node
	PreserveDIP    bool   `json:"PreserveDIP,omitempty"`    // preserve-destination (KP-5)
	VipExternalIP  bool   `json:"VipExternalIP,omitempty"`  // NodePort, externalIP and ingress load balancers
	UseMux         bool   `json:"UseMux,omitempty"`         // ingress with preserve-destination
	Distribution   string `json:"Distribution,omitempty"`
	// Not HNS fields: the Service port this load balancer serves.
	Service string `json:"Service"` // namespace/name
	Port    string `json:"Port,omitempty"`
	Kind    string `json:"Kind"`
}

// State is everything HNS holds on one node.
type State struct {
	Networks      []Network      `json:"Networks"`
	Endpoints     []Endpoint     `json:"Endpoints"`
	LoadBalancers []LoadBalancer `json:"LoadBalancers"`
}
