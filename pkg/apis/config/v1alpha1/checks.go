package v1alpha1

import (
	"fmt"
	"math/big"
	"net/netip"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Check is one rule of the rule book applied to a config that passed
// ValidateInput. Validate runs every check; `winkube plan` shows each with
// its verdict.
type Check struct {
	Rule string // rule ID, such as PLAN-1
	Name string // what the check makes sure of
	// Validate returns one error per problem, each naming the field to
	// change; fields that do not parse are skipped (ValidateInput reports
	// them).
	Validate func(c *Cluster) field.ErrorList
}

// Checks are the rule checks of a cluster config, in the order a person
// designs a cluster: address spaces first (PLAN-1), then flannel (NET-2).
func Checks() []Check {
	return []Check{
		{Rule: "PLAN-1", Name: "address spaces do not overlap", Validate: checkOverlaps},
		{Rule: "PLAN-1", Name: "DNS service IP is inside the service subnet", Validate: checkDNSServiceIP},
		{Rule: "PLAN-1", Name: "cluster subnet holds every node and its pods", Validate: checkCapacity},
		{Rule: "NET-2", Name: "flannel backend interoperates with Windows flanneld", Validate: checkFlannel},
	}
}

var networkPath = field.NewPath("network")

// networkFields are the network's address spaces, in PLAN-1's order.
var networkFields = []string{"clusterCIDR", "serviceCIDR", "managementCIDR", "loadBalancerCIDR"}

// parsedNetworks are the address spaces that parse as IPv4 networks.
func parsedNetworks(n *Network) map[string]netip.Prefix {
	values := map[string]string{"clusterCIDR": n.ClusterCIDR, "serviceCIDR": n.ServiceCIDR,
		"managementCIDR": n.ManagementCIDR, "loadBalancerCIDR": n.LoadBalancerCIDR}
	nets := map[string]netip.Prefix{}
	for name, v := range values {
		if p, err := netip.ParsePrefix(v); err == nil && p == p.Masked() && p.Addr().Is4() {
			nets[name] = p
		}
	}
	return nets
}

// checkOverlaps applies PLAN-1: the cluster, service and management
// networks (and the LoadBalancer pool) must not overlap, and every node
// the file places must sit in the management network.
func checkOverlaps(c *Cluster) field.ErrorList {
	var errs field.ErrorList
	nets := parsedNetworks(&c.Network)
	for i, a := range networkFields {
		for _, b := range networkFields[i+1:] {
			pa, okA := nets[a]
			pb, okB := nets[b]
			if okA && okB && pa.Overlaps(pb) {
				errs = append(errs, field.Invalid(networkPath.Child(b), pb.String(), "overlaps "+networkPath.Child(a).String()+" "+pa.String()+"; the cluster, service, management and load balancer networks must not overlap (PLAN-1)"))
			}
		}
	}
	return append(errs, checkNodeAddresses(c, nets)...)
}

// checkNodeAddresses applies PLAN-1 to the management IPs a pool's nodes
// list gives.
func checkNodeAddresses(c *Cluster, nets map[string]netip.Prefix) field.ErrorList {
	var errs field.ErrorList
	mgmt, hasMgmt := nets["managementCIDR"]
	for i := range c.NodePools {
		for j, n := range c.NodePools[i].Nodes {
			ip, err := netip.ParseAddr(n.ManagementIP)
			if err != nil {
				continue
			}
			path := field.NewPath("nodePools").Index(i).Child("nodes").Index(j).Child("managementIP")
			if hasMgmt && !mgmt.Contains(ip) {
				errs = append(errs, field.Invalid(path, n.ManagementIP, "is outside network.managementCIDR "+mgmt.String()+"; set network.managementCIDR to the nodes' host network (PLAN-1)"))
			}
			for _, name := range []string{"clusterCIDR", "serviceCIDR", "loadBalancerCIDR"} {
				if p, ok := nets[name]; ok && p.Contains(ip) {
					errs = append(errs, field.Invalid(path, n.ManagementIP, "is inside network."+name+" "+p.String()+"; node addresses must not overlap the pod, service or load balancer networks (PLAN-1)"))
				}
			}
		}
	}
	return errs
}

// checkDNSServiceIP applies PLAN-1: kube-dns's address is a service address.
func checkDNSServiceIP(c *Cluster) field.ErrorList {
	n := &c.Network
	ip, err := netip.ParseAddr(n.DNSServiceIP)
	svc, ok := parsedNetworks(n)["serviceCIDR"]
	if err != nil || !ok || svc.Contains(ip) {
		return nil
	}
	return field.ErrorList{field.Invalid(networkPath.Child("dnsServiceIP"), n.DNSServiceIP, "must be inside network.serviceCIDR "+svc.String()+" (PLAN-1)")}
}

// checkCapacity applies PLAN-1 sizing: the cluster subnet holds
// nodes + nodes × maxPods addresses (seed 004's formula), every node gets
// its own pod subnet, each subnet holds maxPods plus its network, gateway
// and broadcast addresses, and the management network holds every node.
func checkCapacity(c *Cluster) field.ErrorList {
	var errs field.ErrorList
	n := &c.Network
	nets := parsedNetworks(n)
	cluster, ok := nets["clusterCIDR"]
	if !ok || n.NodeCIDRMaskSize < cluster.Bits() || n.NodeCIDRMaskSize > 30 {
		return nil // already reported
	}
	nodes := c.NodeCount()
	if need, have := RequiredPodAddresses(c), pow2(32-cluster.Bits()); big.NewInt(need).Cmp(have) > 0 {
		errs = append(errs, field.Invalid(networkPath.Child("clusterCIDR"), n.ClusterCIDR,
			fmt.Sprintf("holds %s addresses but %d nodes with their maxPods need %d (nodes + nodes × maxPods, PLAN-1); use a larger network", have, nodes, need)))
	}
	if subnets := pow2(n.NodeCIDRMaskSize - cluster.Bits()); big.NewInt(int64(nodes)).Cmp(subnets) > 0 {
		errs = append(errs, field.Invalid(networkPath.Child("clusterCIDR"), n.ClusterCIDR,
			fmt.Sprintf("holds %s node subnets of /%d but the pools have %d nodes", subnets, n.NodeCIDRMaskSize, nodes)))
	}
	perNode := PodAddressesPerNode(n.NodeCIDRMaskSize)
	for i := range c.NodePools {
		if p := &c.NodePools[i]; p.MaxPods > perNode {
			errs = append(errs, field.Invalid(field.NewPath("nodePools").Index(i).Child("maxPods"), p.MaxPods,
				fmt.Sprintf("a /%d node subnet holds only %d pod addresses; lower maxPods or network.nodeCIDRMaskSize", n.NodeCIDRMaskSize, perNode)))
		}
	}
	if mgmt, ok := nets["managementCIDR"]; ok && big.NewInt(int64(nodes+firstNodeHost)).Cmp(pow2(32-mgmt.Bits())) > 0 {
		errs = append(errs, field.Invalid(networkPath.Child("managementCIDR"), n.ManagementCIDR,
			fmt.Sprintf("too small for %d nodes (node addresses start at .10)", nodes)))
	}
	return errs
}

// RequiredPodAddresses is seed 004's minimum cluster subnet size (PLAN-1):
// one address per node plus maxPods per node, e.g. 5 + 5 × 100 = 505.
func RequiredPodAddresses(c *Cluster) int64 {
	var n int64
	for i := range c.NodePools {
		p := &c.NodePools[i]
		n += int64(p.Replicas()) * int64(1+p.MaxPods)
	}
	return n
}

// PodAddressesPerNode is how many pods a node subnet of the prefix length
// holds: all but its network, gateway and broadcast addresses.
func PodAddressesPerNode(maskSize int) int {
	return (1 << (32 - maskSize)) - 3
}

// checkFlannel applies NET-2 (and NET-3 for host-gw): the backend follows
// the Windows network mode, and VXLAN uses VNI 4096 on port 4789, the only
// values Linux and Windows flannel interoperate on in the seeds.
func checkFlannel(c *Cluster) field.ErrorList {
	var errs field.ErrorList
	n := &c.Network
	f := &n.Flannel
	path := networkPath.Child("flannel")
	want := map[string]string{ModeOverlay: BackendVXLAN, ModeL2Bridge: BackendHostGW}[n.Mode]
	if want != "" && f.Backend != "" && f.Backend != want {
		errs = append(errs, field.Invalid(path.Child("backend"), f.Backend,
			fmt.Sprintf("network.mode %s needs the %s backend (NET-2, NET-3); change network.flannel.backend or network.mode", n.Mode, want)))
	}
	if f.Backend != BackendVXLAN {
		return errs
	}
	if f.VNI != DefaultVNI {
		errs = append(errs, field.Invalid(path.Child("vni"), f.VNI, fmt.Sprintf("must be %d: Linux and Windows flannel interoperate only on VNI %d (NET-2)", DefaultVNI, DefaultVNI)))
	}
	if f.Port != DefaultVXLANPort {
		errs = append(errs, field.Invalid(path.Child("port"), f.Port, fmt.Sprintf("must be %d: flanneld on Windows supports only UDP port %d (NET-2)", DefaultVXLANPort, DefaultVXLANPort)))
	}
	return errs
}

func pow2(n int) *big.Int { return new(big.Int).Lsh(big.NewInt(1), uint(max(n, 0))) }
