package v1alpha1

import (
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/windows"
)

// Validate reports every problem in a defaulted config, each with its field
// path: the input errors of ValidateInput and the failures of every rule
// check of Checks.
func Validate(c *Cluster) field.ErrorList {
	errs := ValidateInput(c)
	for _, chk := range Checks() {
		errs = append(errs, chk.Validate(c)...)
	}
	return errs
}

// ValidateInput reports the problems that make a defaulted config
// unreadable — bad syntax, unknown values, out-of-range numbers — as
// opposed to a readable config that breaks a rule (Checks).
func ValidateInput(c *Cluster) field.ErrorList {
	var errs field.ErrorList
	if c.APIVersion != APIVersion {
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), c.APIVersion, []string{APIVersion}))
	}
	if c.Kind != Kind {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), c.Kind, []string{Kind}))
	}
	if _, err := c.KubernetesMinor(); err != nil {
		errs = append(errs, field.Invalid(field.NewPath("kubernetesVersion"), c.KubernetesVersion, err.Error()))
	}
	errs = append(errs, validateEndpoint(c.ControlPlaneEndpoint, field.NewPath("controlPlaneEndpoint"))...)
	errs = append(errs, validateNetwork(&c.Network, field.NewPath("network"))...)
	errs = append(errs, validatePools(c, field.NewPath("nodePools"))...)
	errs = append(errs, validateNodes(c, field.NewPath("nodePools"))...)
	errs = append(errs, validateProxy(c.Proxy, field.NewPath("proxy"))...)
	errs = append(errs, validateControlPlane(c.ControlPlane, field.NewPath("controlPlane"))...)
	errs = append(errs, validateActiveDirectory(c.ActiveDirectory, field.NewPath("activeDirectory"))...)
	errs = append(errs, validateImages(c.Images, field.NewPath("images"))...)
	return errs
}

func validateActiveDirectory(ad *ActiveDirectory, path *field.Path) field.ErrorList {
	if ad == nil {
		return nil
	}
	var errs field.ErrorList
	switch {
	case ad.Domain == "":
		errs = append(errs, field.Required(path.Child("domain"), "the domain's DNS name, such as "+DefaultDomain))
	case !windows.ValidDNSDomain(ad.Domain) || !strings.Contains(ad.Domain, "."):
		errs = append(errs, field.Invalid(path.Child("domain"), ad.Domain, "want a DNS name of two or more labels of letters, digits and inner hyphens, such as "+DefaultDomain))
	}
	if ad.NetBIOSName != "" && !windows.ValidNetBIOSDomain(ad.NetBIOSName) {
		errs = append(errs, field.Invalid(path.Child("netBIOSName"), ad.NetBIOSName, `want 1 to 15 characters, not starting with a dot, none of \ / : * ? " < > |`))
	}
	return errs
}

// hostLoopback is the address the host's own servers listen on.
var hostLoopback = netip.MustParseAddr("127.0.0.1")

func validateNetwork(n *Network, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if n.Mode != ModeOverlay && n.Mode != ModeL2Bridge {
		errs = append(errs, field.NotSupported(path.Child("mode"), n.Mode, []string{ModeOverlay, ModeL2Bridge}))
	}
	nets := map[string]netip.Prefix{}
	for _, f := range []struct {
		name, value string
	}{{"clusterCIDR", n.ClusterCIDR}, {"serviceCIDR", n.ServiceCIDR}, {"managementCIDR", n.ManagementCIDR}, {"loadBalancerCIDR", n.LoadBalancerCIDR}} {
		p, err := netip.ParsePrefix(f.value)
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(path.Child(f.name), f.value, "must be a CIDR such as 10.244.0.0/16"))
		case p != p.Masked():
			errs = append(errs, field.Invalid(path.Child(f.name), f.value, "host bits must be zero; did you mean "+p.Masked().String()+"?"))
		case !p.Addr().Is4():
			// LIM-13: no IPv6 on overlay, no IPv6-only anywhere; dual-stack is out of scope.
			errs = append(errs, field.Invalid(path.Child(f.name), f.value, "only IPv4 is supported: Windows nodes do not support IPv6-only clusters and overlay networks are IPv4 only (LIM-13)"))
		default:
			nets[f.name] = p
		}
	}
	if lb, ok := nets["loadBalancerCIDR"]; ok && lb.Bits() > 30 {
		// The pool never hands out its network and broadcast addresses.
		errs = append(errs, field.Invalid(path.Child("loadBalancerCIDR"), n.LoadBalancerCIDR, "too small: a pool needs at least /30 to have an address besides its network and broadcast addresses"))
	}
	if lb, ok := nets["loadBalancerCIDR"]; ok && lb.Contains(hostLoopback) {
		// up serves loopback pools on the host: a Service on port 6443 or
		// 53 would meet the API server or DNS, and other tools on the host
		// use 127.0.0.1 too.
		errs = append(errs, field.Invalid(path.Child("loadBalancerCIDR"), n.LoadBalancerCIDR, "must not contain 127.0.0.1, where the API server, the cluster DNS and other programs of this machine listen; use a range of its own such as "+DefaultLoadBalancerCIDR))
	}
	if _, err := netip.ParseAddr(n.DNSServiceIP); err != nil {
		errs = append(errs, field.Invalid(path.Child("dnsServiceIP"), n.DNSServiceIP, "must be an IP address such as 10.96.0.10"))
	}
	if cl, ok := nets["clusterCIDR"]; ok && (n.NodeCIDRMaskSize < cl.Bits() || n.NodeCIDRMaskSize > 30) {
		errs = append(errs, field.Invalid(path.Child("nodeCIDRMaskSize"), n.NodeCIDRMaskSize,
			fmt.Sprintf("must be between the cluster CIDR's prefix (%d) and 30", cl.Bits())))
	}
	errs = append(errs, validateFlannelInput(&n.Flannel, path.Child("flannel"))...)
	return errs
}

func validatePools(c *Cluster, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(c.NodePools) == 0 {
		errs = append(errs, field.Required(path, "at least one node pool"))
	}
	seen := map[string]bool{}
	for i := range c.NodePools {
		p := &c.NodePools[i]
		pp := path.Index(i)
		if seen[p.Name] {
			errs = append(errs, field.Duplicate(pp.Child("name"), p.Name))
		}
		seen[p.Name] = true
		errs = append(errs, validatePool(p, pp)...)
	}
	return errs
}

func validatePool(p *NodePool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if p.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), "a DNS label such as win2019"))
	} else {
		for _, msg := range validation.IsDNS1123Label(p.Name) {
			errs = append(errs, field.Invalid(path.Child("name"), p.Name, msg))
		}
	}
	errs = append(errs, validateOS(p, path)...)
	if p.Replicas() < 0 {
		errs = append(errs, field.Invalid(path.Child("count"), p.Replicas(), "must be zero or more"))
	}
	if p.CPU < 1 {
		errs = append(errs, field.Invalid(path.Child("cpu"), p.CPU, "must be at least 1 core"))
	}
	if p.Memory != nil && p.Memory.Sign() <= 0 {
		errs = append(errs, field.Invalid(path.Child("memory"), p.Memory.String(), "must be positive, such as 8Gi"))
	}
	if p.MaxPods < 1 {
		errs = append(errs, field.Invalid(path.Child("maxPods"), p.MaxPods, "must be at least 1"))
	}
	if p.Runtime != RuntimeContainerd && p.Runtime != RuntimeDocker {
		errs = append(errs, field.NotSupported(path.Child("runtime"), p.Runtime, []string{RuntimeContainerd, RuntimeDocker}))
	}
	errs = append(errs, validateLabels(p.Labels, path.Child("labels"))...)
	errs = append(errs, validateTaints(p.Taints, path.Child("taints"))...)
	errs = append(errs, validateResources(p.KubeReserved, path.Child("kubeReserved"))...)
	errs = append(errs, validateResources(p.SystemReserved, path.Child("systemReserved"))...)
	errs = append(errs, validateEviction(p.EvictionHard, path.Child("evictionHard"))...)
	return errs
}

func validateOS(p *NodePool, path *field.Path) field.ErrorList {
	switch p.OS {
	case OSLinux:
		if p.Release != "" || p.Build != "" {
			return field.ErrorList{field.Forbidden(path.Child("release"), "release and build are for windows pools only")}
		}
		return nil
	case OSWindows:
		_, err := p.WindowsBuild()
		if err != nil {
			return field.ErrorList{field.Invalid(path.Child(windowsVersionField(p)), p.Release+p.Build, err.Error())}
		}
		return nil
	case "":
		return field.ErrorList{field.Required(path.Child("os"), "linux or windows")}
	}
	return field.ErrorList{field.NotSupported(path.Child("os"), p.OS, []string{OSLinux, OSWindows})}
}

func windowsVersionField(p *NodePool) string {
	if p.Build != "" {
		return "build"
	}
	return "release"
}

// WindowsBuild resolves the pool's release or build to a full build with a
// revision (UBR), the way a real node reports it (KLT-1).
func (p *NodePool) WindowsBuild() (windows.Build, error) {
	switch {
	case p.Release != "" && p.Build != "":
		return windows.Build{}, fmt.Errorf("set release or build, not both")
	case p.Build != "":
		b, err := windows.ParseBuild(p.Build)
		if err != nil {
			return windows.Build{}, err
		}
		if r, ok := windows.ReleaseByBuild(b.Build); ok && b.Revision == 0 {
			b.Revision = r.UBR
		}
		return b, nil
	case p.Release != "":
		r, ok := windows.ReleaseByName(p.Release)
		if !ok {
			return windows.Build{}, fmt.Errorf("unknown Windows Server release; use one of %s or a build such as %s", strings.Join(releaseNames(), ", "), exampleBuild())
		}
		return windows.Build{Major: 10, Minor: 0, Build: r.Build, Revision: r.UBR}, nil
	}
	return windows.Build{}, fmt.Errorf("a windows pool needs release (such as \"2019\" or \"2022\") or build (such as %q)", exampleBuild())
}

// exampleBuild is the build the messages give as an example: 2019's.
func exampleBuild() string {
	r, _ := windows.ReleaseByBuild(windows.Build2019)
	return r.Version().Label()
}

func releaseNames() []string {
	var names []string
	for _, r := range windows.Releases() {
		names = append(names, r.Names[0])
	}
	return names
}

func validateLabels(labels map[string]string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for k, v := range labels {
		for _, msg := range validation.IsQualifiedName(k) {
			errs = append(errs, field.Invalid(path.Key(k), k, msg))
		}
		for _, msg := range validation.IsValidLabelValue(v) {
			errs = append(errs, field.Invalid(path.Key(k), v, msg))
		}
	}
	return errs
}

func validateTaints(taints []corev1.Taint, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	effects := []string{string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute)}
	for i, t := range taints {
		for _, msg := range validation.IsQualifiedName(t.Key) {
			errs = append(errs, field.Invalid(path.Index(i).Child("key"), t.Key, msg))
		}
		if t.Value != "" {
			for _, msg := range validation.IsValidLabelValue(t.Value) {
				errs = append(errs, field.Invalid(path.Index(i).Child("value"), t.Value, msg))
			}
		}
		switch t.Effect {
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			errs = append(errs, field.NotSupported(path.Index(i).Child("effect"), t.Effect, effects))
		}
	}
	return errs
}

func validateResources(rl corev1.ResourceList, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for name, q := range rl {
		switch name {
		case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods:
		default:
			errs = append(errs, field.NotSupported(path.Key(string(name)), name, []string{"cpu", "memory", "ephemeral-storage", "pods"}))
		}
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(path.Key(string(name)), q.String(), "must not be negative"))
		}
	}
	return errs
}

var evictionSignals = []string{"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"}

func validateEviction(ev map[string]string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for k, v := range ev {
		known := false
		for _, s := range evictionSignals {
			known = known || s == k
		}
		if !known {
			errs = append(errs, field.NotSupported(path.Key(k), k, evictionSignals))
			continue
		}
		if !validThreshold(v) {
			errs = append(errs, field.Invalid(path.Key(k), v, "must be a quantity such as 500Mi or a percentage such as 10%"))
		}
	}
	return errs
}

func validThreshold(v string) bool {
	if p, ok := strings.CutSuffix(v, "%"); ok {
		var f float64
		_, err := fmt.Sscanf(p, "%g", &f)
		return err == nil && f >= 0 && f <= 100
	}
	q, err := resource.ParseQuantity(v)
	return err == nil && q.Sign() >= 0
}
