package lint

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/windows"
)

// checkLimits reports the Windows limitations no API server enforces
// (LIM-2..9, 14, 15, 17..20) for pods that run Windows containers.
func (r *run) checkLimits(p *podInfo) {
	if !p.isWindows() {
		return
	}
	r.checkPodNetworking(p)
	r.checkVolumes(p)
	visitContainers(p.w.spec, p.w.path, func(c *corev1.Container, path *field.Path) {
		r.checkContainer(p, c, path)
	})
	r.checkGracePeriod(p)
	r.checkLinuxOnlySecurity(p)
}

// checkPodNetworking is LIM-2 and LIM-3.
func (r *run) checkPodNetworking(p *podInfo) {
	spec, path := p.w.spec, p.w.path
	if spec.HostNetwork && !isHostProcess(spec) {
		r.report(&p.w.object, "LIM-2", SeverityError,
			fmt.Sprintf("%s: hostNetwork is unsupported for Windows pods that are not HostProcess pods", path.Child("hostNetwork")),
			fmt.Sprintf("remove %s, or make every container a HostProcess container (securityContext.windowsOptions.hostProcess: true)", path.Child("hostNetwork")))
	}
	if spec.DNSPolicy == corev1.DNSClusterFirstWithHostNet {
		r.report(&p.w.object, "LIM-3", SeverityError,
			fmt.Sprintf("%s: ClusterFirstWithHostNet is unsupported on Windows", path.Child("dnsPolicy")),
			fmt.Sprintf("set %s: ClusterFirst", path.Child("dnsPolicy")))
	}
}

// checkVolumes is LIM-4, LIM-9 and LIM-18.
func (r *run) checkVolumes(p *podInfo) {
	for i := range p.w.spec.Volumes {
		v := &p.w.spec.Volumes[i]
		path := p.w.path.Child("volumes").Index(i)
		switch {
		case v.EmptyDir != nil && v.EmptyDir.Medium == corev1.StorageMediumMemory:
			r.report(&p.w.object, "LIM-4", SeverityError,
				fmt.Sprintf("%s: emptyDir medium Memory is unsupported on Windows (no RAM disk)", path.Child("emptyDir", "medium")),
				fmt.Sprintf("remove %s to use node disk", path.Child("emptyDir", "medium")))
		case v.NFS != nil:
			r.report(&p.w.object, "LIM-9", SeverityError,
				fmt.Sprintf("%s: NFS volumes are unsupported on Windows", path.Child("nfs")),
				fmt.Sprintf("replace %s with an SMB or CSI volume that has a Windows driver", path.Child("nfs")))
		}
		if mode := defaultModePath(v, path); mode != nil {
			r.report(&p.w.object, "LIM-9", SeverityWarning,
				fmt.Sprintf("%s: file modes are not applied on Windows (no UID/GID)", mode),
				fmt.Sprintf("remove %s and protect the files with ACLs", mode))
		}
		if secretVolume(v) {
			r.report(&p.w.object, "LIM-18", SeverityInfo,
				fmt.Sprintf("%s: Secrets are written in plain text to the Windows node's disk (no tmpfs)", path),
				"restrict the node's files with ACLs and encrypt the volume with BitLocker")
		}
	}
}

// defaultModePath returns the path of a defaultMode set on a projected
// volume, nil when none is set.
func defaultModePath(v *corev1.Volume, path *field.Path) *field.Path {
	switch {
	case v.Secret != nil && v.Secret.DefaultMode != nil:
		return path.Child("secret", "defaultMode")
	case v.ConfigMap != nil && v.ConfigMap.DefaultMode != nil:
		return path.Child("configMap", "defaultMode")
	case v.Projected != nil && v.Projected.DefaultMode != nil:
		return path.Child("projected", "defaultMode")
	case v.DownwardAPI != nil && v.DownwardAPI.DefaultMode != nil:
		return path.Child("downwardAPI", "defaultMode")
	}
	return nil
}

func secretVolume(v *corev1.Volume) bool {
	if v.Secret != nil {
		return true
	}
	if v.Projected != nil {
		for _, s := range v.Projected.Sources {
			if s.Secret != nil {
				return true
			}
		}
	}
	return false
}

// checkContainer is LIM-5..8, LIM-15, LIM-17 and LIM-19 for one container.
func (r *run) checkContainer(p *podInfo, c *corev1.Container, path *field.Path) {
	o := &p.w.object
	if len(c.VolumeDevices) > 0 {
		r.report(o, "LIM-5", SeverityError,
			fmt.Sprintf("%s: raw block volumes are unsupported on Windows", path.Child("volumeDevices")),
			fmt.Sprintf("remove %s and mount a filesystem volume instead", path.Child("volumeDevices")))
	}
	for i, m := range c.VolumeMounts {
		r.checkMount(p, &m, path.Child("volumeMounts").Index(i))
	}
	for _, list := range []corev1.ResourceList{c.Resources.Requests, c.Resources.Limits} {
		for name := range list {
			if strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
				r.report(o, "LIM-8", SeverityError,
					fmt.Sprintf("%s: %s: huge pages are unsupported on Windows", path.Child("resources"), name),
					fmt.Sprintf("remove %s from %s", name, path.Child("resources")))
			}
		}
	}
	if sc := c.SecurityContext; sc != nil && sc.Privileged != nil && *sc.Privileged && p.w.spec.OS == nil {
		r.report(o, "LIM-15", SeverityError,
			fmt.Sprintf("%s: privileged containers do not exist on Windows", path.Child("securityContext", "privileged")),
			fmt.Sprintf("remove %s; use a HostProcess pod (windowsOptions.hostProcess: true, hostNetwork: true) for host access", path.Child("securityContext", "privileged")))
	}
	if usesPing(c) {
		r.report(o, "LIM-17", SeverityInfo,
			fmt.Sprintf("%s: ping (ICMP) to addresses outside the pod network fails from Windows pods", path),
			"probe with curl or Test-NetConnection (TCP) instead of ping")
	}
	r.checkMemory(p, c, path)
}

// checkMount is LIM-6 and LIM-7.
func (r *run) checkMount(p *podInfo, m *corev1.VolumeMount, path *field.Path) {
	if m.MountPropagation != nil && *m.MountPropagation != corev1.MountPropagationNone {
		r.report(&p.w.object, "LIM-6", SeverityError,
			fmt.Sprintf("%s: mount propagation is unsupported on Windows", path.Child("mountPropagation")),
			fmt.Sprintf("remove %s", path.Child("mountPropagation")))
	}
	if (m.SubPath != "" || m.SubPathExpr != "") && r.dockerReachable(p) {
		sub := path.Child("subPath")
		if m.SubPathExpr != "" {
			sub = path.Child("subPathExpr")
		}
		r.report(&p.w.object, "LIM-7", SeverityError,
			fmt.Sprintf("%s: Docker on Windows mounts directories only, so a subPath mapping is unsupported on the docker nodes", sub),
			fmt.Sprintf("mount the whole volume and drop %s, or run the pod on containerd nodes", sub))
	}
}

// checkMemory is LIM-19: without an OOM killer a Windows container pages
// to disk, so requests should equal limits.
func (r *run) checkMemory(p *podInfo, c *corev1.Container, path *field.Path) {
	limit, hasLimit := c.Resources.Limits[corev1.ResourceMemory]
	req, hasReq := c.Resources.Requests[corev1.ResourceMemory]
	res := path.Child("resources")
	switch {
	case !hasLimit:
		r.report(&p.w.object, "LIM-19", SeverityInfo,
			fmt.Sprintf("%s: no memory limit; Windows has no OOM killer and pages to disk when memory runs out", res.Child("limits", "memory")),
			fmt.Sprintf("set %s and %s to the same value", res.Child("requests", "memory"), res.Child("limits", "memory")))
	case hasReq && req.Cmp(limit) != 0:
		r.report(&p.w.object, "LIM-19", SeverityInfo,
			fmt.Sprintf("%s (%s) differs from %s (%s); Windows only enforces the limit and pages to disk instead of OOM-killing", res.Child("requests", "memory"), req.String(), res.Child("limits", "memory"), limit.String()),
			fmt.Sprintf("set %s equal to %s", res.Child("requests", "memory"), res.Child("limits", "memory")))
	}
}

func usesPing(c *corev1.Container) bool {
	words := append(append([]string(nil), c.Command...), c.Args...)
	for _, probe := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if probe != nil && probe.Exec != nil {
			words = append(words, probe.Exec.Command...)
		}
	}
	for _, w := range words {
		for _, f := range strings.Fields(w) {
			if f = strings.ToLower(f); f == "ping" || f == "ping.exe" {
				return true
			}
		}
	}
	return false
}

// checkGracePeriod is LIM-14: Docker stops a Windows container after at
// most 5 seconds whatever the pod asks for.
func (r *run) checkGracePeriod(p *podInfo) {
	g := p.w.spec.TerminationGracePeriodSeconds
	if g == nil || !r.dockerReachable(p) || windows.GracePeriod(windows.RuntimeDocker, *g) == *g {
		return
	}
	path := p.w.path.Child("terminationGracePeriodSeconds")
	r.report(&p.w.object, "LIM-14", SeverityWarning,
		fmt.Sprintf("%s: %d seconds are cut to %d on the docker nodes: Docker sends CTRL_SHUTDOWN_EVENT, waits %d seconds, then kills the container",
			path, *g, windows.DockerShutdownWait, windows.DockerShutdownWait),
		fmt.Sprintf("make shutdown finish within %d seconds, or run the pod on containerd nodes", windows.DockerShutdownWait))
}

// dockerReachable reports whether the pod can land on a Windows node that
// runs Docker (KLT-10); when it can land nowhere, any Windows node counts.
func (r *run) dockerReachable(p *podInfo) bool {
	nodes := p.reachable
	if len(nodes) == 0 {
		nodes = r.target.Nodes
	}
	for _, n := range nodes {
		if n.IsWindows() && windows.IsDocker(n.Runtime) {
			return true
		}
	}
	return false
}

// checkLinuxOnlySecurity is LIM-20: without spec.os the API server lets
// Linux-only settings through, and Windows silently ignores them.
func (r *run) checkLinuxOnlySecurity(p *podInfo) {
	if p.w.spec.OS != nil {
		return
	}
	var fields []string
	if sc := p.w.spec.SecurityContext; sc != nil {
		fields = append(fields, linuxOnlyPodFields(sc, p.w.path.Child("securityContext"))...)
	}
	visitContainers(p.w.spec, p.w.path, func(c *corev1.Container, path *field.Path) {
		if c.SecurityContext != nil {
			fields = append(fields, linuxOnlyContainerFields(c.SecurityContext, path.Child("securityContext"))...)
		}
	})
	for _, f := range fields {
		r.report(&p.w.object, "LIM-20", SeverityWarning,
			fmt.Sprintf("%s: Linux-only security setting has no effect on Windows", f),
			fmt.Sprintf("remove %s (and set spec.os.name: windows so the API server checks this)", f))
	}
}

func linuxOnlyPodFields(sc *corev1.PodSecurityContext, path *field.Path) []string {
	var out []string
	add := func(set bool, name string) {
		if set {
			out = append(out, path.Child(name).String())
		}
	}
	add(sc.SELinuxOptions != nil, "seLinuxOptions")
	add(sc.AppArmorProfile != nil, "appArmorProfile")
	add(sc.SeccompProfile != nil, "seccompProfile")
	return out
}

func linuxOnlyContainerFields(sc *corev1.SecurityContext, path *field.Path) []string {
	var out []string
	add := func(set bool, name string) {
		if set {
			out = append(out, path.Child(name).String())
		}
	}
	add(sc.SELinuxOptions != nil, "seLinuxOptions")
	add(sc.AppArmorProfile != nil, "appArmorProfile")
	add(sc.SeccompProfile != nil, "seccompProfile")
	add(sc.Capabilities != nil, "capabilities")
	return out
}
