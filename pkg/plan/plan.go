// Package plan turns a winkube Cluster file into seed 004's join plan for
// real Windows nodes: the address spaces and their capacity (PLAN-1), the
// Windows releases the Kubernetes version supports (VER-1), the pause
// image per build (IMG-5), every rule check's verdict, and the files a
// person applies (Files). The kube-system manifests come from pkg/addons,
// the same functions `winkube up` installs them with.
package plan

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/windows"
)

// Plan is everything `winkube plan` prints and writes for one config.
type Plan struct {
	Cluster           *v1alpha1.Cluster `json:"-"`
	Name              string            `json:"name"`
	KubernetesVersion string            `json:"kubernetesVersion"`
	Minor             int               `json:"-"`
	Mode              string            `json:"networkMode"`
	Flannel           v1alpha1.Flannel  `json:"flannel"`
	AddressSpaces     []AddressSpace    `json:"addressSpaces"`
	Capacity          Capacity          `json:"capacity"`
	// SupportedReleases are VER-1's Windows Server releases for the version.
	SupportedReleases []string     `json:"supportedWindowsReleases"`
	PauseImages       []PauseImage `json:"pauseImages"`
	WindowsNodes      []Node       `json:"windowsNodes"`
	Verdicts          []Verdict    `json:"checks"`
	Notes             []string     `json:"notes,omitempty"`
}

// AddressSpace is one of PLAN-1's address spaces.
type AddressSpace struct {
	Name      string `json:"name"`
	Field     string `json:"field"`
	Value     string `json:"value"`
	Addresses uint64 `json:"addresses,omitempty"`
}

// Capacity is PLAN-1's sizing of the cluster subnet.
type Capacity struct {
	Nodes int `json:"nodes"`
	// Required is seed 004's minimum: nodes + nodes × maxPods.
	Required      int64  `json:"requiredAddresses"`
	Available     uint64 `json:"availableAddresses"`
	NodeMaskSize  int    `json:"nodeCIDRMaskSize"`
	NodeSubnets   uint64 `json:"nodeSubnets"`
	PodsPerSubnet int    `json:"podAddressesPerNode"`
}

// PauseImage is the sandbox image a Windows build runs (IMG-5).
type PauseImage struct {
	Build   string `json:"build"`
	Release string `json:"release"`
	Image   string `json:"image"`
}

// Node is one Windows node to join.
type Node struct {
	Name          string `json:"name"`
	Pool          string `json:"pool"`
	Build         string `json:"build"`
	ManagementIP  string `json:"managementIP"`
	InterfaceName string `json:"interfaceName"`
	PauseImage    string `json:"pauseImage"`
	pool          *v1alpha1.NodePool
}

// Verdict is one check's outcome.
type Verdict struct {
	Rule     string   `json:"rule"`
	Check    string   `json:"check"`
	Pass     bool     `json:"pass"`
	Problems []string `json:"problems,omitempty"`
}

// New builds the plan of a config that passed v1alpha1.ValidateInput.
func New(c *v1alpha1.Cluster) (*Plan, error) {
	if errs := v1alpha1.ValidateInput(c); len(errs) > 0 {
		return nil, &v1alpha1.ValidationError{Errs: errs}
	}
	minor, err := c.KubernetesMinor()
	if err != nil {
		return nil, fmt.Errorf("kubernetesVersion: %w", err)
	}
	p := &Plan{
		Cluster: c, Name: c.Name, KubernetesVersion: c.KubernetesVersion, Minor: minor,
		Mode: c.Network.Mode, Flannel: c.Network.Flannel,
		SupportedReleases: windows.SupportedWindowsReleases(minor),
	}
	p.AddressSpaces = addressSpaces(&c.Network)
	p.Capacity = capacity(c)
	p.WindowsNodes = windowsNodes(c)
	p.PauseImages = pauseImages(p.WindowsNodes)
	for _, chk := range Checks() {
		p.Verdicts = append(p.Verdicts, verdict(chk, c))
	}
	p.Notes = notes(c)
	return p, nil
}

// Passed reports whether every check passed.
func (p *Plan) Passed() bool {
	for _, v := range p.Verdicts {
		if !v.Pass {
			return false
		}
	}
	return true
}

func verdict(chk v1alpha1.Check, c *v1alpha1.Cluster) Verdict {
	v := Verdict{Rule: chk.Rule, Check: chk.Name, Pass: true}
	for _, e := range chk.Validate(c) {
		v.Pass = false
		v.Problems = append(v.Problems, e.Error())
	}
	return v
}

func addressSpaces(n *v1alpha1.Network) []AddressSpace {
	size := func(cidr string) uint64 {
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			return 0
		}
		return 1 << (32 - p.Bits())
	}
	path := field.NewPath("network")
	return []AddressSpace{
		{Name: "service subnet", Field: path.Child("serviceCIDR").String(), Value: n.ServiceCIDR, Addresses: size(n.ServiceCIDR)},
		{Name: "cluster subnet", Field: path.Child("clusterCIDR").String(), Value: n.ClusterCIDR, Addresses: size(n.ClusterCIDR)},
		{Name: "DNS service IP", Field: path.Child("dnsServiceIP").String(), Value: n.DNSServiceIP},
		{Name: "management network", Field: path.Child("managementCIDR").String(), Value: n.ManagementCIDR, Addresses: size(n.ManagementCIDR)},
	}
}

func capacity(c *v1alpha1.Cluster) Capacity {
	n := &c.Network
	cl, _ := netip.ParsePrefix(n.ClusterCIDR)
	cp := Capacity{
		Nodes: c.NodeCount(), Required: v1alpha1.RequiredPodAddresses(c),
		Available: 1 << (32 - cl.Bits()), NodeMaskSize: n.NodeCIDRMaskSize,
		PodsPerSubnet: v1alpha1.PodAddressesPerNode(n.NodeCIDRMaskSize),
	}
	if d := n.NodeCIDRMaskSize - cl.Bits(); d >= 0 && d < 32 {
		cp.NodeSubnets = 1 << d
	}
	return cp
}

// windowsNodes are the config's Windows nodes with what their join needs.
func windowsNodes(c *v1alpha1.Cluster) []Node {
	var out []Node
	for _, n := range c.Nodes() {
		if !n.Pool.IsWindows() {
			continue
		}
		b, _ := n.Pool.WindowsBuild()
		iface := n.InterfaceName
		if iface == "" {
			iface = v1alpha1.DefaultInterfaceName
		}
		out = append(out, Node{Name: n.Name, Pool: n.Pool.Name, Build: b.Label(), ManagementIP: n.InternalIP.String(),
			InterfaceName: iface, PauseImage: n.Pool.PauseImage, pool: n.Pool})
	}
	return out
}

// pauseImages lists each Windows build once with its pool's pause image.
func pauseImages(nodes []Node) []PauseImage {
	seen := map[string]bool{}
	var out []PauseImage
	for _, n := range nodes {
		key := n.Build + " " + n.PauseImage
		if seen[key] {
			continue
		}
		seen[key] = true
		b, _ := n.pool.WindowsBuild()
		r, _ := windows.ReleaseByBuild(b.Build)
		out = append(out, PauseImage{Build: n.Build, Release: r.Name(), Image: n.PauseImage})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Build+out[i].Image < out[j].Build+out[j].Image })
	return out
}

// notes say which values are placeholders a person still has to supply.
func notes(c *v1alpha1.Cluster) []string {
	var out []string
	if c.ControlPlaneEndpoint == "" {
		out = append(out, "controlPlaneEndpoint is not set: the join files use "+endpointPlaceholder+"; set it to the API server's host:port")
	}
	var unnamed []string
	for i := range c.NodePools {
		p := &c.NodePools[i]
		if p.IsWindows() && p.Replicas() > len(p.Nodes) {
			unnamed = append(unnamed, p.Name)
		}
	}
	if len(unnamed) > 0 {
		out = append(out, "pools "+strings.Join(unnamed, ", ")+" list no nodes: their names and management IPs are the ones winkube up would emulate; list your machines under nodePools[].nodes")
	}
	return out
}

// endpointPlaceholder stands for a control-plane endpoint the config lacks.
const endpointPlaceholder = "<control-plane-host>:6443"
