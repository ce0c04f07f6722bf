package plan

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/windows"
)

// Checks are the config's rule checks (v1alpha1.Checks: PLAN-1, NET-2)
// followed by those that depend on the Kubernetes version and the Windows
// builds of a real join.
func Checks() []v1alpha1.Check {
	return append(v1alpha1.Checks(),
		v1alpha1.Check{Rule: "VER-1", Name: "every Windows release is supported by the Kubernetes version", Validate: checkSupportedReleases},
		v1alpha1.Check{Rule: "IMG-5", Name: "every Windows pool's pause image runs on its build", Validate: checkPauseImages},
		v1alpha1.Check{Rule: "PLAN-4", Name: "Windows nodes reserve at least 2Gi of memory for the system", Validate: checkSystemReserved},
		v1alpha1.Check{Rule: "KLT-10", Name: "the container runtime exists for the Kubernetes version", Validate: checkRuntime},
		v1alpha1.Check{Rule: "PLAN-7", Name: "the proxy is bypassed for the cluster's own networks", Validate: checkNoProxy},
	)
}

// forWindowsPools runs fn on every Windows pool with its field path.
func forWindowsPools(c *v1alpha1.Cluster, fn func(p *v1alpha1.NodePool, path *field.Path) field.ErrorList) field.ErrorList {
	var errs field.ErrorList
	for i := range c.NodePools {
		if p := &c.NodePools[i]; p.IsWindows() && p.Replicas() > 0 {
			errs = append(errs, fn(p, field.NewPath("nodePools").Index(i))...)
		}
	}
	return errs
}

// versionField is where a pool names its Windows version.
func versionField(p *v1alpha1.NodePool, path *field.Path) (*field.Path, string) {
	if p.Build != "" {
		return path.Child("build"), p.Build
	}
	return path.Child("release"), p.Release
}

// checkSupportedReleases applies VER-1.
func checkSupportedReleases(c *v1alpha1.Cluster) field.ErrorList {
	minor, err := c.KubernetesMinor()
	if err != nil {
		return nil
	}
	supported := windows.SupportedWindowsReleases(minor)
	return forWindowsPools(c, func(p *v1alpha1.NodePool, path *field.Path) field.ErrorList {
		b, err := p.WindowsBuild()
		if err != nil || windows.IsSupportedWindowsBuild(minor, b.Build) {
			return nil
		}
		f, v := versionField(p, path)
		msg := fmt.Sprintf("Kubernetes 1.%d supports no Windows Server release as a node (VER-1); change kubernetesVersion", minor)
		if len(supported) > 0 {
			msg = fmt.Sprintf("Kubernetes 1.%d supports Windows Server %s as nodes, not build %d (VER-1); change %s or kubernetesVersion",
				minor, strings.Join(supported, ", "), b.Build, f)
		}
		return field.ErrorList{field.Invalid(f, v, msg)}
	})
}

// checkPauseImages applies IMG-5: a pause image without an entry for the
// node's build keeps every pod ContainerCreating (TS-11).
func checkPauseImages(c *v1alpha1.Cluster) field.ErrorList {
	minor, _ := c.KubernetesMinor()
	return forWindowsPools(c, func(p *v1alpha1.NodePool, path *field.Path) field.ErrorList {
		b, err := p.WindowsBuild()
		if err != nil {
			return nil
		}
		if _, err := imageinfo.MatchHost(imageinfo.Lookup(p.PauseImage), v1alpha1.OSWindows, "amd64", b); err != nil {
			return field.ErrorList{field.Invalid(path.Child("pauseImage"), p.PauseImage,
				fmt.Sprintf("does not run on build %s: %v; use %s (IMG-5)", b.Label(), err, windows.RecommendedPauseImage(minor)))}
		}
		return nil
	})
}

// checkSystemReserved applies PLAN-4's --system-reserved memory>=2Gi.
func checkSystemReserved(c *v1alpha1.Cluster) field.ErrorList {
	return forWindowsPools(c, func(p *v1alpha1.NodePool, path *field.Path) field.ErrorList {
		var errs field.ErrorList
		for _, v := range windows.CheckSystemReserved(p.SystemReserved) {
			q := p.SystemReserved.Memory()
			errs = append(errs, field.Invalid(path.Child("systemReserved", "memory"), q.String(), v.Message+" (PLAN-4, "+v.Rule+"); set it to 2Gi or more"))
		}
		return errs
	})
}

// checkRuntime applies KLT-10: Docker ran through dockershim, which 1.24
// removed.
func checkRuntime(c *v1alpha1.Cluster) field.ErrorList {
	minor, err := c.KubernetesMinor()
	if err != nil || windows.DockershimAvailable(minor) {
		return nil
	}
	return forWindowsPools(c, func(p *v1alpha1.NodePool, path *field.Path) field.ErrorList {
		if p.Runtime != v1alpha1.RuntimeDocker {
			return nil
		}
		return field.ErrorList{field.Invalid(path.Child("runtime"), p.Runtime,
			fmt.Sprintf("Kubernetes 1.%d has no dockershim (removed in 1.24, KLT-10); use containerd", minor))}
	})
}

// checkNoProxy applies PLAN-7: behind a proxy, traffic to pods, services
// and the nodes' own network must not go to the proxy.
func checkNoProxy(c *v1alpha1.Cluster) field.ErrorList {
	if c.Proxy == nil {
		return nil
	}
	entries := map[string]bool{}
	for _, e := range strings.Split(noProxyValue(c), ",") {
		entries[strings.TrimSpace(e)] = true
	}
	var missing []string
	for _, cidr := range []string{c.Network.ClusterCIDR, c.Network.ServiceCIDR, c.Network.ManagementCIDR} {
		if !entries[cidr] {
			missing = append(missing, cidr)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("proxy", "noProxy"), c.Proxy.NoProxy,
		"must list "+strings.Join(missing, ", ")+": pod, service and node traffic must bypass the proxy (PLAN-7)")}
}

// noProxyValue is NO_PROXY as the plan writes it: the file's list, or the
// cluster's own networks when the file has none.
func noProxyValue(c *v1alpha1.Cluster) string {
	if c.Proxy.NoProxy != "" {
		return c.Proxy.NoProxy
	}
	return strings.Join([]string{"localhost", "127.0.0.1", c.Network.ClusterCIDR, c.Network.ServiceCIDR, c.Network.ManagementCIDR}, ",")
}
