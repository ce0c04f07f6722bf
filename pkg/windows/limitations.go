package windows

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
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

// checkVolumes: LIM-4 (memory emptyDir), LIM-8 (hugepages emptyDir) and
// LIM-9 (NFS; defaultMode and item modes are ignored: no UID/GID bits).
func checkVolumes(spec *corev1.PodSpec, path *field.Path) []Violation {
	var out []Violation
	for i, v := range spec.Volumes {
		vp := path.Child("volumes").Index(i)
		out = append(out, checkEmptyDirMedium(v, vp)...)
		if v.NFS != nil {
			out = append(out, Violation{
				Rule: "LIM-9", Path: vp.Child("nfs").String(), Severity: SeverityError,
				Message: "NFS volumes are not supported on Windows nodes",
				Fix:     "use an SMB CSI driver or another volume type Windows supports",
			})
		}
		for _, p := range fileModePaths(v, vp) {
			out = append(out, Violation{
				Rule: "LIM-9", Path: p, Severity: SeverityWarning,
				Message: "file modes are ignored on Windows (no UID/GID permission bits)",
				Fix:     "remove the mode and protect the files with Windows ACLs",
			})
		}
	}
	return out
}

func checkEmptyDirMedium(v corev1.Volume, vp *field.Path) []Violation {
	if v.EmptyDir == nil {
		return nil
	}
	p := vp.Child("emptyDir", "medium").String()
	switch {
	case v.EmptyDir.Medium == corev1.StorageMediumMemory:
		return []Violation{{
			Rule: "LIM-4", Path: p, Severity: SeverityError,
			Message: "emptyDir medium Memory is not supported on Windows (no RAM disk)",
			Fix:     "remove medium so the emptyDir uses node disk",
		}}
	case strings.HasPrefix(string(v.EmptyDir.Medium), string(corev1.StorageMediumHugePages)):
		return []Violation{{
			Rule: "LIM-8", Path: p, Severity: SeverityError,
			Message: "huge pages are not supported on Windows",
			Fix:     "remove medium",
		}}
	}
	return nil
}

// apiDefaultFileMode is 0644 (420), what the API server fills in for
// secret, configMap, projected and downwardAPI volumes. Manifests dumped
// from a live cluster carry it, so it is no request for permission bits.
const apiDefaultFileMode int32 = 0o644

// fileModePaths lists the defaultMode and items[].mode fields a volume sets
// to anything but the API default.
func fileModePaths(v corev1.Volume, vp *field.Path) []string {
	var out []string
	add := func(mode *int32, p *field.Path) {
		if mode != nil && *mode != apiDefaultFileMode {
			out = append(out, p.String())
		}
	}
	addItems := func(base *field.Path, items []corev1.KeyToPath) {
		for j, it := range items {
			add(it.Mode, base.Child("items").Index(j).Child("mode"))
		}
	}
	switch {
	case v.Secret != nil:
		add(v.Secret.DefaultMode, vp.Child("secret", "defaultMode"))
		addItems(vp.Child("secret"), v.Secret.Items)
	case v.ConfigMap != nil:
		add(v.ConfigMap.DefaultMode, vp.Child("configMap", "defaultMode"))
		addItems(vp.Child("configMap"), v.ConfigMap.Items)
	case v.Projected != nil:
		add(v.Projected.DefaultMode, vp.Child("projected", "defaultMode"))
	case v.DownwardAPI != nil:
		add(v.DownwardAPI.DefaultMode, vp.Child("downwardAPI", "defaultMode"))
	}
	return out
}

// checkVolumeDevices: LIM-5, raw block devices.
func checkVolumeDevices(spec *corev1.PodSpec, path *field.Path) []Violation {
	var out []Violation
	for _, ref := range containersOf(spec, path) {
		if len(ref.c.VolumeDevices) > 0 {
			out = append(out, Violation{
				Rule: "LIM-5", Path: ref.path.Child("volumeDevices").String(), Severity: SeverityError,
				Message: "raw block volumes (volumeDevices) are not supported on Windows",
				Fix:     "mount the volume as a filesystem with volumeMounts",
			})
		}
	}
	return out
}

// checkMountPropagation: LIM-6. None is the default and harmless.
func checkMountPropagation(spec *corev1.PodSpec, path *field.Path) []Violation {
	var out []Violation
	for _, ref := range containersOf(spec, path) {
		for j, m := range ref.c.VolumeMounts {
			if m.MountPropagation == nil || *m.MountPropagation == corev1.MountPropagationNone {
				continue
			}
			out = append(out, Violation{
				Rule: "LIM-6", Path: ref.path.Child("volumeMounts").Index(j).Child("mountPropagation").String(), Severity: SeverityError,
				Message: "mount propagation is not supported on Windows",
				Fix:     "remove mountPropagation",
			})
		}
	}
	return out
}

// checkHugePages: LIM-8, hugepages-* requests and limits.
func checkHugePages(spec *corev1.PodSpec, path *field.Path) []Violation {
	var out []Violation
	for _, ref := range containersOf(spec, path) {
		rp := ref.path.Child("resources")
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
				Rule: "LIM-15", Path: ref.path.Child("securityContext", "privileged").String(), Severity: SeverityError,
				Message: "privileged containers do not exist on Windows",
				Fix:     "use a HostProcess pod (windowsOptions.hostProcess: true with hostNetwork: true) for host access",
			})
		}
	}
	return out
}

// checkPing: LIM-17. ICMP to remote networks fails from Windows pods, so a
// probe or command that pings gives false failures.
func checkPing(spec *corev1.PodSpec, path *field.Path) []Violation {
	var out []Violation
	for _, ref := range containersOf(spec, path) {
		cands := map[*field.Path][]string{ref.path.Child("command"): ref.c.Command}
		for name, p := range map[string]*corev1.Probe{"livenessProbe": ref.c.LivenessProbe, "readinessProbe": ref.c.ReadinessProbe, "startupProbe": ref.c.StartupProbe} {
			if p != nil && p.Exec != nil {
				cands[ref.path.Child(name, "exec", "command")] = p.Exec.Command
			}
		}
		for p, cmd := range cands {
			if usesPing(cmd) {
				out = append(out, Violation{
					Rule: "LIM-17", Path: p.String(), Severity: SeverityWarning,
					Message: "ICMP (ping) to addresses outside the node's network fails from Windows pods",
					Fix:     "check connectivity with TCP instead, e.g. curl or Test-NetConnection -Port",
				})
			}
		}
	}
	sortViolations(out)
	return out
}

// usesPing reports whether a command pings a remote address (directly or in
// a shell line). A ping of the pod itself (localhost, loopback, the pod IP
// from the downward API) never leaves the pod: it is the usual keep-alive
// or sleep of Windows images, not outbound ICMP.
func usesPing(cmd []string) bool {
	words := strings.Fields(strings.ToLower(strings.Join(cmd, " ")))
	for i, word := range words {
		if isPingWord(word) && !pingsSelf(words[i+1:]) {
			return true
		}
	}
	return false
}

func isPingWord(word string) bool {
	word = strings.TrimSuffix(strings.Trim(word, `"'`), ".exe")
	return word == "ping" || strings.HasSuffix(word, `\ping`) || strings.HasSuffix(word, "/ping")
}

// pingsSelf reports whether the arguments of one ping, up to the next shell
// separator, name the pod's own address.
func pingsSelf(args []string) bool {
	for _, a := range args {
		if a == "&&" || a == "||" || a == "|" || a == "&" || a == ";" {
			return false
		}
		end := strings.ContainsAny(a, ";|&")
		a = strings.Trim(a, `"';|&`)
		if selfAddress(a) {
			return true
		}
		if end {
			return false
		}
	}
	return false
}

// selfAddress: names that resolve to the pod itself. POD_IP is the name the
// Kubernetes docs give the downward-API variable for status.podIP.
func selfAddress(a string) bool {
	switch a {
	case "localhost", "::1", "[::1]", "$(pod_ip)", "$env:pod_ip", "${env:pod_ip}", "%pod_ip%", "$pod_ip", "${pod_ip}":
		return true
	}
	return strings.HasPrefix(a, "127.") && strings.Count(a, ".") == 3
}

// checkMemory: LIM-19. Windows has no OOM killer and pages to disk, so a
// memory request below the limit is not protection; requests should equal
// limits.
func checkMemory(spec *corev1.PodSpec, path *field.Path) []Violation {
	var out []Violation
	for _, ref := range containersOf(spec, path) {
		req, hasReq := ref.c.Resources.Requests[corev1.ResourceMemory]
		lim, hasLim := ref.c.Resources.Limits[corev1.ResourceMemory]
		rp := ref.path.Child("resources")
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
		sp := ref.path.Child("securityContext")
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

// defaultTerminationMessagePath is the API default; the kubelet maps it for
// every container, so only an explicit other path is the user's choice.
const defaultTerminationMessagePath = "/dev/termination-log"

// checkSingleFileMounts: LIM-7 under Docker, which mounts directories only.
// Seed 000 lists every subPath mount (including secret subPaths) as
// unsupported in the Docker era, so any subPath is reported.
func checkSingleFileMounts(spec *corev1.PodSpec, path *field.Path) []Violation {
	var out []Violation
	for _, ref := range containersOf(spec, path) {
		for j, m := range ref.c.VolumeMounts {
			if m.SubPath == "" && m.SubPathExpr == "" {
				continue
			}
			out = append(out, Violation{
				Rule: "LIM-7", Path: ref.path.Child("volumeMounts").Index(j).String(), Severity: SeverityError,
				Message: "subPath mounts (single-file mappings) need containerd; Docker on Windows mounts directories only",
				Fix:     "mount the whole volume as a directory, or run the node on containerd",
			})
		}
		if p := ref.c.TerminationMessagePath; p != "" && p != defaultTerminationMessagePath {
			out = append(out, Violation{
				Rule: "LIM-7", Path: ref.path.Child("terminationMessagePath").String(), Severity: SeverityWarning,
				Message: "terminationMessagePath maps a single file, which needs containerd; Docker on Windows mounts directories only",
				Fix:     "remove terminationMessagePath, or run the node on containerd",
			})
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

// ContainerOS says which operating systems one container's image offers.
type ContainerOS struct {
	Path string   // e.g. "spec.containers[1]"
	OSes []string // e.g. {"windows"}, {"linux"}, {"linux","windows"}
}

// MixedPodOS implements LIM-1: one pod cannot hold both a Windows-only and a
// Linux-only container. Multi-OS images fit either side and never conflict.
func MixedPodOS(containers []ContainerOS) []Violation {
	var windowsOnly, linuxOnly []string
	for _, c := range containers {
		win, lin := hasOS(c.OSes, "windows"), hasOS(c.OSes, "linux")
		switch {
		case win && !lin:
			windowsOnly = append(windowsOnly, c.Path)
		case lin && !win:
			linuxOnly = append(linuxOnly, c.Path)
		}
	}
	if len(windowsOnly) == 0 || len(linuxOnly) == 0 {
		return nil
	}
	return []Violation{{
		Rule: "LIM-1", Path: linuxOnly[0], Severity: SeverityError,
		Message: fmt.Sprintf("Windows and Linux containers cannot share a pod: %s Windows-only, %s Linux-only",
			strings.Join(windowsOnly, ", "), strings.Join(linuxOnly, ", ")),
		Fix: "split the Windows and Linux containers into separate pods",
	}}
}

func hasOS(oses []string, want string) bool {
	for _, o := range oses {
		if strings.EqualFold(o, want) {
			return true
		}
	}
	return false
}

// sortViolations orders by path so map iteration never changes the output.
func sortViolations(vs []Violation) {
	for i := 1; i < len(vs); i++ {
		for j := i; j > 0 && vs[j].Path < vs[j-1].Path; j-- {
			vs[j], vs[j-1] = vs[j-1], vs[j]
		}
	}
}
