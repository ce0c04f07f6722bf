package windows

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/rules"
)

// Severity says how sure a limitation finding is to hurt. It is the rule
// book's one severity, so a violation becomes a lint, doctor or webhook
// finding without translation.
type Severity = rules.Severity

const (
	// SeverityError: the workload fails or the setting is refused on Windows.
	SeverityError = rules.SeverityError
	// SeverityWarning: accepted, but silently ignored or degraded.
	SeverityWarning = rules.SeverityWarning
	// SeverityInfo: advice that follows from a limitation.
	SeverityInfo = rules.SeverityInfo
)

// Violation is one LIM finding, as lint and the planner report it.
type Violation struct {
	Rule     string   // rule ID, e.g. "LIM-4"
	Path     string   // field path, e.g. "spec.volumes[0].emptyDir.medium"
	Message  string   // what is wrong on Windows
	Fix      string   // what to change
	Severity Severity // how bad it is
}

func (v Violation) String() string {
	return fmt.Sprintf("%s: %s: %s", v.Rule, v.Path, v.Message)
}

// PodLimitations checks a pod spec that will run on a Windows node against
// LIM-2 … LIM-9, LIM-14, LIM-15 and LIM-17 … LIM-20. runtime is the
// node's container runtime ("containerd" or "docker", a runtime version
// such as "docker://19.3.14" works too); LIM-7 and LIM-14 depend on it.
// Paths start at "spec"; use PodLimitationsAt for templates.
func PodLimitationsAt(spec *corev1.PodSpec, runtime string, path *field.Path) []Violation {
	if spec == nil {
		return nil
	}
	checks := []func(*corev1.PodSpec, *field.Path) []Violation{
		checkHostNetwork,      // LIM-2
		checkDNSPolicy,        // LIM-3
		checkVolumes,          // LIM-4, LIM-8, LIM-9
		checkVolumeDevices,    // LIM-5
		checkMountPropagation, // LIM-6
		checkHugePages,        // LIM-8
		checkPrivileged,       // LIM-15
		checkPing,             // LIM-17
		checkMemory,           // LIM-19
		checkLinuxSecurity,    // LIM-20
		secretVolumeAdvice,    // LIM-18
	}
	var out []Violation
	for _, check := range checks {
		out = append(out, check(spec, path)...)
	}
	if IsDocker(runtime) {
		out = append(out, checkSingleFileMounts(spec, path)...) // LIM-7
		out = append(out, checkGracePeriod(spec, path)...)      // LIM-14
	}
	return out
}

// checkHostNetwork: LIM-2, hostNetwork is for HostProcess pods only.
func checkHostNetwork(spec *corev1.PodSpec, path *field.Path) []Violation {
	if !spec.HostNetwork || IsHostProcessPod(spec) {
		return nil
	}
	return []Violation{{
		Rule: "LIM-2", Path: path.Child("hostNetwork").String(), Severity: SeverityError,
		Message: "hostNetwork is not supported for Windows pods unless they are HostProcess pods",
		Fix:     "remove hostNetwork, or make every container a HostProcess container (windowsOptions.hostProcess: true)",
	}}
}

// checkDNSPolicy: LIM-3. A HostProcess pod runs in the node's network and
// resolves names with the node's own DNS client settings, so its dnsPolicy
// changes nothing: infrastructure DaemonSets shared with Linux often carry
// ClusterFirstWithHostNet, and that is only worth an info finding.
func checkDNSPolicy(spec *corev1.PodSpec, path *field.Path) []Violation {
	if spec.DNSPolicy != corev1.DNSClusterFirstWithHostNet {
		return nil
	}
	if IsHostProcessPod(spec) {
		return []Violation{{
			Rule: "LIM-3", Path: path.Child("dnsPolicy").String(), Severity: SeverityInfo,
			Message: "dnsPolicy is ignored for HostProcess pods: they resolve names with the Windows node's own DNS settings, so cluster Service names resolve only if the node's resolver can",
			Fix:     "nothing to change for Windows; reach cluster Services by ClusterIP, or point the node's DNS client at the cluster DNS, if the pod needs them",
		}}
	}
	return []Violation{{
		Rule: "LIM-3", Path: path.Child("dnsPolicy").String(), Severity: SeverityError,
		Message: "dnsPolicy ClusterFirstWithHostNet is not supported on Windows",
		Fix:     "use dnsPolicy: ClusterFirst",
	}}
}

// checkHugePages: LIM-8, hugepages-* requests and limits.
func checkHugePages(spec *corev1.PodSpec, path *field.Path) []Violation {
	var out []Violation
	for _, ref := range containersOf(spec, path) {
		rp := ref.path().Child("resources")
		for kind, list := range map[string]corev1.ResourceList{"limits": ref.c.Resources.Limits, "requests": ref.c.Resources.Requests} {
			for name := range list {
				if strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
					out = append(out, Violation{
						Rule: "LIM-8", Path: rp.Child(kind).Key(string(name)).String(), Severity: SeverityError,
						Message: "huge pages are not supported on Windows",
						Fix:     "remove the " + string(name) + " resource",
					})
				}
			}
		}
	}
	sortViolations(out)
	return out
}

// checkPrivileged: LIM-15. HostProcess containers replace privileged ones.
// Inside a HostProcess pod privileged is ignored (the containers already
// run on the host), so charts shared with Linux may keep it.
func checkPrivileged(spec *corev1.PodSpec, path *field.Path) []Violation {
	if IsHostProcessPod(spec) {
		return nil
	}
	var out []Violation
	for _, ref := range containersOf(spec, path) {
		if sc := ref.c.SecurityContext; sc != nil && sc.Privileged != nil && *sc.Privileged {
			out = append(out, Violation{
				Rule: "LIM-15", Path: ref.path().Child("securityContext", "privileged").String(), Severity: SeverityError,
				Message: "privileged containers do not exist on Windows",
				Fix:     "use a HostProcess pod (windowsOptions.hostProcess: true with hostNetwork: true) for host access",
			})
		}
	}
	return out
}

// checkMemory: LIM-19. Windows has no OOM killer and pages to disk, so a
// memory request below the limit is not protection; requests should equal
// limits.
func checkMemory(spec *corev1.PodSpec, path *field.Path) []Violation {
	var out []Violation
	for _, ref := range containersOf(spec, path) {
		req, hasReq := ref.c.Resources.Requests[corev1.ResourceMemory]
		lim, hasLim := ref.c.Resources.Limits[corev1.ResourceMemory]
		rp := ref.path().Child("resources")
		switch {
		case !hasLim:
			out = append(out, Violation{
				Rule: "LIM-19", Path: rp.Child("limits").Key("memory").String(), Severity: SeverityInfo,
				Message: "no memory limit: Windows has no OOM killer and pages to disk when memory is overcommitted",
				Fix:     "set a memory limit and an equal memory request",
			})
		case hasReq && req.Cmp(lim) != 0:
			out = append(out, Violation{
				Rule: "LIM-19", Path: rp.Child("requests").Key("memory").String(), Severity: SeverityInfo,
				Message: "memory request differs from the limit: on Windows requests only reduce allocatable, limits are enforced",
				Fix:     "set the memory request equal to the limit",
			})
		}
	}
	return out
}

// checkLinuxSecurity: LIM-20. Without spec.os the API server does not refuse
// Linux-only settings (API-2/API-3 need os.name=windows), and Windows
// ignores them.
func checkLinuxSecurity(spec *corev1.PodSpec, path *field.Path) []Violation {
	if spec.OS != nil {
		return nil
	}
	var out []Violation
	warn := func(p *field.Path, what string) {
		out = append(out, Violation{
			Rule: "LIM-20", Path: p.String(), Severity: SeverityWarning,
			Message: what + " is a Linux-only setting and does nothing on Windows",
			Fix:     "in a manifest shared with Linux, leave spec.os unset and keep it: Windows ignores it; for a Windows-only workload, set spec.os.name: windows and in the same change remove it and every other field the API server forbids for Windows pods (API-3: also allowPrivilegeEscalation, runAsUser, runAsGroup, readOnlyRootFilesystem, privileged, procMount), which Pod Security admission (restricted) no longer asks of pods with spec.os.name windows",
		})
	}
	if sc := spec.SecurityContext; sc != nil {
		sp := path.Child("securityContext")
		if sc.SELinuxOptions != nil {
			warn(sp.Child("seLinuxOptions"), "SELinux")
		}
		if sc.AppArmorProfile != nil {
			warn(sp.Child("appArmorProfile"), "AppArmor")
		}
		if sc.SeccompProfile != nil {
			warn(sp.Child("seccompProfile"), "seccomp")
		}
	}
	for _, ref := range containersOf(spec, path) {
		sc := ref.c.SecurityContext
		if sc == nil {
			continue
		}
		sp := ref.path().Child("securityContext")
		if sc.SELinuxOptions != nil {
			warn(sp.Child("seLinuxOptions"), "SELinux")
		}
		if sc.AppArmorProfile != nil {
			warn(sp.Child("appArmorProfile"), "AppArmor")
		}
		if sc.SeccompProfile != nil {
			warn(sp.Child("seccompProfile"), "seccomp")
		}
		if sc.Capabilities != nil {
			warn(sp.Child("capabilities"), "Linux capabilities")
		}
	}
	return out
}

// checkGracePeriod: LIM-14 under Docker, which kills 5 s after
// CTRL_SHUTDOWN_EVENT whatever the pod asks for.
func checkGracePeriod(spec *corev1.PodSpec, path *field.Path) []Violation {
	g := spec.TerminationGracePeriodSeconds
	if g == nil || *g <= DockerShutdownWait {
		return nil
	}
	return []Violation{{
		Rule: "LIM-14", Path: path.Child("terminationGracePeriodSeconds").String(), Severity: SeverityWarning,
		Message: fmt.Sprintf("Docker on Windows stops containers %d s after CTRL_SHUTDOWN_EVENT; the requested %d s are not honoured", DockerShutdownWait, *g),
		Fix:     "run the node on containerd, which honours the full grace period, or make shutdown finish within 5 s",
	}}
}

// sortViolations orders by path so map iteration never changes the output.
func sortViolations(vs []Violation) {
	for i := 1; i < len(vs); i++ {
		for j := i; j > 0 && vs[j].Path < vs[j-1].Path; j-- {
			vs[j], vs[j-1] = vs[j-1], vs[j]
		}
	}
}

// MinSystemReservedMemory is the least system-reserved memory advised for
// Windows nodes (LIM-19, PLAN-4: --system-reserved memory>=2Gi).
var MinSystemReservedMemory = resource.MustParse("2Gi")

// CheckSystemReserved implements LIM-19's node advice: reserve at least 2 GiB
// of memory for the system.
func CheckSystemReserved(systemReserved corev1.ResourceList) []Violation {
	q, ok := systemReserved[corev1.ResourceMemory]
	if ok && q.Cmp(MinSystemReservedMemory) >= 0 {
		return nil
	}
	return []Violation{{
		Rule: "LIM-19", Path: "systemReserved.memory", Severity: SeverityWarning,
		Message: "Windows nodes should reserve at least 2Gi of memory for the system; without an OOM killer, overcommit pages to disk",
		Fix:     "start the kubelet with --system-reserved=memory=2Gi (or more)",
	}}
}

// secretVolumeAdvice implements LIM-18: Windows writes secret volumes to the
// node's disk in plain text (there is no tmpfs).
func secretVolumeAdvice(spec *corev1.PodSpec, path *field.Path) []Violation {
	if spec == nil {
		return nil
	}
	var out []Violation
	for i, v := range spec.Volumes {
		if v.Secret == nil {
			continue
		}
		out = append(out, Violation{
			Rule: "LIM-18", Path: path.Child("volumes").Index(i).Child("secret").String(), Severity: SeverityInfo,
			Message: "secrets are written in plain text to the Windows node's disk (no tmpfs)",
			Fix:     "restrict the node's files with ACLs and encrypt the volume with BitLocker",
		})
	}
	return out
}
