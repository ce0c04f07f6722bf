package v1alpha1

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/windows"
	"github.com/winkube/winkube/pkg/windows/activedirectory"
	"github.com/winkube/winkube/pkg/windows/kubelet"
)

// Default address spaces: the seeds' values (PLAN-1) and a private host network.
const (
	DefaultClusterCIDR      = "10.244.0.0/16"
	DefaultServiceCIDR      = "10.96.0.0/12"
	DefaultDNSServiceIP     = "10.96.0.10"
	DefaultManagementCIDR   = "10.127.130.0/24"
	DefaultNodeCIDRMaskSize = 24
	DefaultName             = "winkube"
	// DefaultDomain is the Active Directory domain of a cluster whose config
	// has no activeDirectory: the domain Microsoft's and Kubernetes' GMSA
	// documentation and windows-gmsa's tests use, so that their credential
	// specs name the emulated domain unchanged.
	DefaultDomain  = "contoso.com"
	DefaultCPU     = 4
	DefaultMemory  = "8Gi"
	DefaultMaxPods = 110
	// DefaultKubernetesVersion is the emulated control plane's release.
	DefaultKubernetesVersion = kubeversion.Default
	// DefaultInterfaceName is start.ps1's -InterfaceName default (PLAN-3).
	DefaultInterfaceName = "Ethernet"
	// Flannel VXLAN settings Linux and Windows must share (NET-2).
	DefaultVNI       = 4096
	DefaultVXLANPort = 4789
)

// DefaultLoadBalancerCIDR is the LoadBalancer address pool. It is inside
// 127.0.0.0/8 so that `winkube up` can serve every EXTERNAL-IP on the
// host's loopback, as cloud-provider-kind does for kind: Linux answers all
// of 127/8 on lo without configuration, and no other machine can reach
// these addresses. 127.127.131.0/24 is far from 127.0.0.1, where the API
// server and cluster DNS listen, and from the 127.0.0.x other tools use.
const DefaultLoadBalancerCIDR = "127.127.131.0/24"

// WindowsTaint is the taint SCH-3 recommends for every Windows node; it is
// windows.WindowsTaint, kept here for packages that only read the config.
var WindowsTaint = windows.WindowsTaint()

// DefaultCluster is the cluster `winkube up` runs without a config file:
// one Linux worker, two Windows Server 2019 nodes and one 2022 node.
func DefaultCluster() *Cluster {
	c := &Cluster{}
	SetDefaults(c)
	return c
}

func defaultPools() []NodePool {
	return []NodePool{
		{Name: "linux", OS: OSLinux, Count: ptr(1)},
		{Name: "win2019", OS: OSWindows, Release: "2019", Count: ptr(2)},
		{Name: "win2022", OS: OSWindows, Release: "2022", Count: ptr(1)},
	}
}

// SetDefaults fills every field left empty. It never overrides a value the
// user wrote, and leaves invalid values for Validate to report.
func SetDefaults(c *Cluster) {
	if c.APIVersion == "" {
		c.APIVersion = APIVersion
	}
	if c.Kind == "" {
		c.Kind = Kind
	}
	if c.Name == "" {
		c.Name = DefaultName
	}
	c.KubernetesVersion = orDefault(c.KubernetesVersion, DefaultKubernetesVersion)
	setNetworkDefaults(&c.Network)
	// A file that leaves out nodePools gets the default pools; an explicit
	// empty list is an error for Validate.
	if c.NodePools == nil {
		c.NodePools = defaultPools()
	}
	minor, err := c.KubernetesMinor()
	if err != nil {
		minor = pauseK8sMinor // Validate reports the version
	}
	for i := range c.NodePools {
		setPoolDefaults(&c.NodePools[i], minor)
	}
}

func setNetworkDefaults(n *Network) {
	n.Mode = orDefault(n.Mode, ModeOverlay)
	n.ClusterCIDR = orDefault(n.ClusterCIDR, DefaultClusterCIDR)
	n.ServiceCIDR = orDefault(n.ServiceCIDR, DefaultServiceCIDR)
	n.DNSServiceIP = orDefault(n.DNSServiceIP, DefaultDNSServiceIP)
	n.ManagementCIDR = orDefault(n.ManagementCIDR, DefaultManagementCIDR)
	if n.LoadBalancerCIDR == "" {
		n.LoadBalancerCIDR = freeLoadBalancerCIDR(n)
	}
	if n.NodeCIDRMaskSize == 0 {
		n.NodeCIDRMaskSize = DefaultNodeCIDRMaskSize
	}
	setFlannelDefaults(&n.Flannel, n.Mode)
}

// setFlannelDefaults derives the backend from the mode (overlay is VXLAN,
// l2bridge is host-gw) and gives VXLAN the seeds' VNI and port (NET-2).
func setFlannelDefaults(f *Flannel, mode string) {
	if f.Backend == "" {
		switch mode {
		case ModeOverlay:
			f.Backend = BackendVXLAN
		case ModeL2Bridge:
			f.Backend = BackendHostGW
		}
	}
	if f.Backend != BackendVXLAN {
		return
	}
	if f.VNI == 0 {
		f.VNI = DefaultVNI
	}
	if f.Port == 0 {
		f.Port = DefaultVXLANPort
	}
}

// freeLoadBalancerCIDR is the default pool, or when the file's own
// networks overlap it, the first /24 after it that overlaps none of them:
// a file written before the pool existed stays valid.
func freeLoadBalancerCIDR(n *Network) string {
	p := netip.MustParsePrefix(DefaultLoadBalancerCIDR)
	for i := 0; i < 64; i++ {
		if !overlapsAny(p, n.ClusterCIDR, n.ServiceCIDR, n.ManagementCIDR) {
			return p.String()
		}
		a := p.Addr().As4()
		a[2]++
		p = netip.PrefixFrom(netip.AddrFrom4(a), 24)
	}
	return DefaultLoadBalancerCIDR // validation names the overlap
}

func overlapsAny(p netip.Prefix, cidrs ...string) bool {
	for _, c := range cidrs {
		if q, err := netip.ParsePrefix(c); err == nil && q.Overlaps(p) {
			return true
		}
	}
	return false
}

func setPoolDefaults(p *NodePool, k8sMinor int) {
	if p.Count == nil {
		p.Count = ptr(max(1, len(p.Nodes)))
	}
	for i := range p.Nodes {
		n := &p.Nodes[i]
		if n.Name == "" {
			n.Name = fmt.Sprintf("%s-%d", p.Name, i+1)
		}
		if n.InterfaceName == "" && p.IsWindows() {
			n.InterfaceName = DefaultInterfaceName
		}
	}
	if p.CPU == 0 {
		p.CPU = DefaultCPU
	}
	if p.Memory == nil {
		m := resource.MustParse(DefaultMemory)
		p.Memory = &m
	}
	if p.MaxPods == 0 {
		p.MaxPods = DefaultMaxPods
	}
	p.Runtime = orDefault(p.Runtime, RuntimeContainerd)
	if p.EvictionHard == nil {
		p.EvictionHard = kubelet.DefaultEvictionHard(p.OS)
	}
	if p.PauseImage == "" {
		p.PauseImage = defaultPauseImage(p, k8sMinor)
	}
	if !p.IsWindows() {
		return
	}
	// SCH-3: a Windows pool is tainted unless the file says otherwise
	// (an explicit `taints: []` keeps it untainted).
	if p.Taints == nil {
		p.Taints = []corev1.Taint{WindowsTaint}
	}
	// LIM-19 / PLAN-4: keep at least 2 GiB for the system on Windows.
	if p.SystemReserved == nil {
		p.SystemReserved = corev1.ResourceList{corev1.ResourceMemory: windows.MinSystemReservedMemory.DeepCopy()}
	}
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func ptr[T any](v T) *T { return &v }

// pauseK8sMinor is the Kubernetes minor whose kubelet default pause image
// the pools start from when the version cannot be read.
const pauseK8sMinor = kubeversion.DefaultMinor

// defaultPauseImage is the kubelet's default pause image of the cluster's
// Kubernetes minor, or, when that image has no entry for the pool's Windows
// build, the first well-known pause image that has one — what an installer
// would configure (IMG-5).
func defaultPauseImage(p *NodePool, k8sMinor int) string {
	var candidates []string
	if def := windows.DefaultPauseImage(k8sMinor); def != "" {
		candidates = append(candidates, def)
	}
	candidates = append(candidates, windows.PauseImages(k8sMinor)...)
	build, err := p.WindowsBuild()
	if !p.IsWindows() || err != nil {
		return candidates[0]
	}
	for _, ref := range candidates {
		if _, err := imageinfo.MatchHost(imageinfo.Lookup(ref), OSWindows, "amd64", build); err == nil {
			return ref
		}
	}
	return candidates[0]
}

// Domain is the cluster's emulated Active Directory domain, which its
// Windows nodes are joined to: activeDirectory's, else DefaultDomain.
func (c *Cluster) Domain() activedirectory.Domain {
	if c.ActiveDirectory == nil || c.ActiveDirectory.Domain == "" {
		return activedirectory.NewDomain(DefaultDomain, "")
	}
	return activedirectory.NewDomain(c.ActiveDirectory.Domain, c.ActiveDirectory.NetBIOSName)
}
