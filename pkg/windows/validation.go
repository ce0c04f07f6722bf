package windows

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Messages the API server uses for OS-specific fields (API-2, API-3, API-4).
const (
	msgWindowsForbidden   = "cannot be set for a windows pod"
	msgLinuxForbidden     = "windows options cannot be set for a linux pod"
	msgWindowsResources   = "may not be set for a windows pod"
	msgHostProcessPolicy  = "hostProcess containers are disallowed by cluster policy"
	msgHostProcessAll     = "If pod contains any hostProcess containers then all containers must be HostProcess containers"
	msgHostProcessNetwork = "hostNetwork must be true if pod contains any hostProcess containers"
)

// ValidationOptions carries the cluster settings some API rules depend on.
type ValidationOptions struct {
	// AllowPrivileged mirrors kube-apiserver --allow-privileged. HostProcess
	// pods are refused without it (API-6).
	AllowPrivileged bool
}

// ValidatePodSpecOSWithOptions runs the OS-related checks the API server
// applies to a pod spec (API-1 … API-6) for a given cluster setup. path is
// the spec's path, usually field.NewPath("spec") or
// field.NewPath("spec", "template", "spec"). The error types and messages are
// the API server's, so a finding reads like the rejection the user would get.
// PodViolations gives the same errors with their rules and fixes.
func ValidatePodSpecOSWithOptions(spec *corev1.PodSpec, path *field.Path, opts ValidationOptions) field.ErrorList {
	var errs field.ErrorList
	for _, e := range apiErrors(spec, path, opts) {
		errs = append(errs, e.err)
	}
	return errs
}

// validatePodOS implements API-1: an empty name is Required at os.name, any
// name but linux or windows is NotSupported at os.
func validatePodOS(os *corev1.PodOS, path *field.Path) field.ErrorList {
	if os == nil {
		return nil
	}
	if os.Name == "" {
		return field.ErrorList{field.Required(path.Child("name"), "")}
	}
	if os.Name != corev1.Linux && os.Name != corev1.Windows {
		return field.ErrorList{field.NotSupported(path, os.Name, []string{string(corev1.Linux), string(corev1.Windows)})}
	}
	return nil
}

// containerRef is one container of a pod with its field path.
type containerRef struct {
	c *corev1.Container
	// The field path is made only when a finding needs it: Mutate and
	// Validate check every container of every pod, and most pass.
	base    *field.Path
	section string
	i       int
}

// path is the container's field path, e.g. spec.containers[1].
func (r containerRef) path() *field.Path { return r.base.Child(r.section).Index(r.i) }

// containersOf lists init, regular and ephemeral containers in the order
// the API server visits them.
func containersOf(spec *corev1.PodSpec, path *field.Path) []containerRef {
	out := make([]containerRef, 0, len(spec.InitContainers)+len(spec.Containers)+len(spec.EphemeralContainers))
	for i := range spec.InitContainers {
		out = append(out, containerRef{&spec.InitContainers[i], path, "initContainers", i})
	}
	for i := range spec.Containers {
		out = append(out, containerRef{&spec.Containers[i], path, "containers", i})
	}
	for i := range spec.EphemeralContainers {
		c := corev1.Container(spec.EphemeralContainers[i].EphemeralContainerCommon)
		out = append(out, containerRef{&c, path, "ephemeralContainers", i})
	}
	return out
}

// ValidateLinuxPod implements API-4: windowsOptions on the pod or any
// container of a linux pod is Forbidden.
func ValidateLinuxPod(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if sc := spec.SecurityContext; sc != nil && sc.WindowsOptions != nil {
		errs = append(errs, field.Forbidden(path.Child("securityContext", "windowsOptions"), msgLinuxForbidden))
	}
	for _, ref := range containersOf(spec, path) {
		if sc := ref.c.SecurityContext; sc != nil && sc.WindowsOptions != nil {
			errs = append(errs, field.Forbidden(ref.path().Child("securityContext", "windowsOptions"), msgLinuxForbidden))
		}
	}
	return errs
}

// ValidateWindowsPod implements API-2 (pod fields) and API-3 (container
// fields) for a windows pod. A pointer field counts as set even when false.
func ValidateWindowsPod(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	errs := windowsPodFields(spec, path)
	for _, ref := range containersOf(spec, path) {
		errs = append(errs, windowsContainerFields(ref.c.SecurityContext, ref.path().Child("securityContext"))...)
	}
	return errs
}

// windowsPodFields is API-2. In the v1 API the host namespace fields live on
// the spec, while the API server reports them at spec.<field> as well.
func windowsPodFields(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	forbid := func(set bool, p *field.Path) {
		if set {
			errs = append(errs, field.Forbidden(p, msgWindowsForbidden))
		}
	}
	scPath := path.Child("securityContext")
	sc := spec.SecurityContext
	if sc == nil {
		sc = &corev1.PodSecurityContext{}
	}
	forbid(sc.AppArmorProfile != nil, scPath.Child("appArmorProfile"))
	forbid(sc.SELinuxOptions != nil, scPath.Child("seLinuxOptions"))
	forbid(spec.HostUsers != nil, path.Child("hostUsers"))
	forbid(spec.HostPID, path.Child("hostPID"))
	forbid(spec.HostIPC, path.Child("hostIPC"))
	forbid(sc.SeccompProfile != nil, scPath.Child("seccompProfile"))
	forbid(sc.FSGroup != nil, scPath.Child("fsGroup"))
	forbid(sc.FSGroupChangePolicy != nil, scPath.Child("fsGroupChangePolicy"))
	forbid(len(sc.Sysctls) > 0, scPath.Child("sysctls"))
	forbid(spec.ShareProcessNamespace != nil, path.Child("shareProcessNamespace"))
	forbid(sc.RunAsUser != nil, scPath.Child("runAsUser"))
	forbid(sc.RunAsGroup != nil, scPath.Child("runAsGroup"))
	forbid(sc.SupplementalGroups != nil, scPath.Child("supplementalGroups"))
	forbid(sc.SupplementalGroupsPolicy != nil, scPath.Child("supplementalGroupsPolicy"))
	forbid(sc.SELinuxChangePolicy != nil, scPath.Child("seLinuxChangePolicy"))
	return errs
}

// windowsContainerFields is API-3 for one container's security context.
func windowsContainerFields(sc *corev1.SecurityContext, path *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	var errs field.ErrorList
	forbid := func(set bool, name string) {
		if set {
			errs = append(errs, field.Forbidden(path.Child(name), msgWindowsForbidden))
		}
	}
	forbid(sc.AppArmorProfile != nil, "appArmorProfile")
	forbid(sc.SELinuxOptions != nil, "seLinuxOptions")
	forbid(sc.SeccompProfile != nil, "seccompProfile")
	forbid(sc.Capabilities != nil, "capabilities")
	forbid(sc.ReadOnlyRootFilesystem != nil, "readOnlyRootFilesystem")
	forbid(sc.Privileged != nil, "privileged")
	forbid(sc.AllowPrivilegeEscalation != nil, "allowPrivilegeEscalation")
	forbid(sc.ProcMount != nil, "procMount")
	forbid(sc.RunAsUser != nil, "runAsUser")
	forbid(sc.RunAsGroup != nil, "runAsGroup")
	return errs
}

// validatePodResourcesOS: pod-level resources (spec.resources) may not be
// set for a windows pod; the API server says so instead of checking values.
func validatePodResourcesOS(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	if spec.Resources == nil || spec.OS == nil || spec.OS.Name != corev1.Windows {
		return nil
	}
	return field.ErrorList{field.Forbidden(path.Child("resources"), msgWindowsResources)}
}

// validateAllWindowsOptions applies API-5 to every container and to the pod,
// whatever the pod's OS.
func validateAllWindowsOptions(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, ref := range containersOf(spec, path) {
		if sc := ref.c.SecurityContext; sc != nil {
			errs = append(errs, validateWindowsOptions(sc.WindowsOptions, ref.path().Child("securityContext", "windowsOptions"))...)
		}
	}
	if sc := spec.SecurityContext; sc != nil {
		errs = append(errs, validateWindowsOptions(sc.WindowsOptions, path.Child("securityContext", "windowsOptions"))...)
	}
	return errs
}

// validateHostProcess implements API-6: pod and container hostProcess must
// agree when both are set; if any container is HostProcess (set or
// inherited) all must be, hostNetwork must be true, and the cluster must
// allow privileged containers.
func validateHostProcess(spec *corev1.PodSpec, path *field.Path, opts ValidationOptions) field.ErrorList {
	var errs field.ErrorList
	podHP := podHostProcess(spec)
	total, hostProcess := 0, 0
	for _, ref := range containersOf(spec, path) {
		total++
		ctrHP := containerHostProcess(ref.c)
		if podHP != nil && ctrHP != nil && *podHP != *ctrHP {
			errs = append(errs, field.Invalid(ref.path().Child("securityContext", "windowsOptions", "hostProcess"), *ctrHP,
				fmt.Sprintf("pod hostProcess value must be identical if both are specified, was %v", *podHP)))
		}
		if effectiveHostProcess(podHP, ctrHP) {
			hostProcess++
		}
	}
	if hostProcess == 0 {
		return errs
	}
	if hostProcess != total {
		errs = append(errs, field.Invalid(path, "", msgHostProcessAll))
	}
	if !spec.HostNetwork {
		errs = append(errs, field.Invalid(path.Child("hostNetwork"), spec.HostNetwork, msgHostProcessNetwork))
	}
	if !opts.AllowPrivileged {
		errs = append(errs, field.Forbidden(path, msgHostProcessPolicy))
	}
	return errs
}

func podHostProcess(spec *corev1.PodSpec) *bool {
	if sc := spec.SecurityContext; sc != nil && sc.WindowsOptions != nil {
		return sc.WindowsOptions.HostProcess
	}
	return nil
}

func containerHostProcess(c *corev1.Container) *bool {
	if sc := c.SecurityContext; sc != nil && sc.WindowsOptions != nil {
		return sc.WindowsOptions.HostProcess
	}
	return nil
}

// effectiveHostProcess: a container's own setting wins; otherwise it inherits
// the pod's.
func effectiveHostProcess(pod, ctr *bool) bool {
	if ctr != nil {
		return *ctr
	}
	return pod != nil && *pod
}

// IsHostProcessPod reports whether any container of the pod is a
// HostProcess container (set on the container or inherited from the pod).
func IsHostProcessPod(spec *corev1.PodSpec) bool {
	if spec == nil {
		return false
	}
	podHP := podHostProcess(spec)
	for _, ref := range containersOf(spec, field.NewPath("spec")) {
		if effectiveHostProcess(podHP, containerHostProcess(ref.c)) {
			return true
		}
	}
	return false
}

// Limits of windowsOptions (API-5).
const (
	maxCredentialSpecKiB  = 64
	maxCredentialSpecLen  = maxCredentialSpecKiB * 1024
	maxUserNameDomainLen  = 256 // the domain must be shorter than this
	maxUserNameUserLen    = 104
	maxNetBIOSDomainLen   = 15
	netBIOSForbiddenChars = `\/:*?"<>|`
	userForbiddenChars    = `"/\:;|=,+*?<>@[]`
)

// validateWindowsOptions implements API-5 for one windowsOptions block.
func validateWindowsOptions(opts *corev1.WindowsSecurityContextOptions, path *field.Path) field.ErrorList {
	if opts == nil {
		return nil
	}
	var errs field.ErrorList
	if name := opts.GMSACredentialSpecName; name != nil {
		for _, msg := range validation.IsDNS1123Subdomain(*name) {
			errs = append(errs, field.Invalid(path.Child("gmsaCredentialSpecName"), *name, msg))
		}
	}
	if spec := opts.GMSACredentialSpec; spec != nil {
		switch {
		case len(*spec) == 0:
			errs = append(errs, field.Invalid(path.Child("gmsaCredentialSpec"), *spec, "gmsaCredentialSpec cannot be an empty string"))
		case len(*spec) > maxCredentialSpecLen:
			errs = append(errs, field.Invalid(path.Child("gmsaCredentialSpec"), *spec,
				fmt.Sprintf("gmsaCredentialSpec size must be under %d KiB", maxCredentialSpecKiB)))
		}
	}
	if user := opts.RunAsUserName; user != nil {
		for _, msg := range runAsUserNameProblems(*user) {
			errs = append(errs, field.Invalid(path.Child("runAsUserName"), *user, msg))
		}
	}
	return errs
}

// runAsUserNameProblems checks "DOMAIN\user" or "user" (API-5). The first
// three problems stop the check, as in the API server; the rest accumulate.
func runAsUserNameProblems(name string) []string {
	switch {
	case name == "":
		return []string{"runAsUserName cannot be an empty string"}
	case hasControlChar(name):
		return []string{"runAsUserName cannot contain control characters"}
	case strings.Count(name, `\`) > 1:
		return []string{"runAsUserName cannot contain more than one backslash"}
	}
	domain, user, hasDomain := strings.Cut(name, `\`)
	if !hasDomain {
		domain, user = "", name
	}
	var out []string
	if len(domain) >= maxUserNameDomainLen {
		out = append(out, fmt.Sprintf("runAsUserName's Domain length must be under %d characters", maxUserNameDomainLen))
	}
	if hasDomain && !isNetBIOSDomain(domain) && !isDNSDomain(domain) {
		out = append(out, "runAsUserName's Domain doesn't match the NetBios nor the DNS format")
	}
	switch {
	case len(user) == 0:
		out = append(out, "runAsUserName's User cannot be empty")
	case len(user) > maxUserNameUserLen:
		out = append(out, fmt.Sprintf("runAsUserName's User length must not be longer than %d characters", maxUserNameUserLen))
	}
	if user != "" && strings.Trim(user, ". ") == "" {
		out = append(out, "runAsUserName's User cannot contain only periods or spaces")
	}
	if strings.ContainsAny(user, userForbiddenChars) {
		out = append(out, `runAsUserName's User cannot contain the following characters: "/\:;|=,+*?<>@[]`)
	}
	return out
}

// hasControlChar matches ASCII control characters (0x00–0x1f, 0x7f), the
// POSIX [:cntrl:] class the API server uses.
func hasControlChar(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// isNetBIOSDomain: 1–15 characters, not starting with a dot, none of
// \ / : * ? " < > |. Length counts characters, not bytes.
func isNetBIOSDomain(d string) bool {
	n := len([]rune(d))
	if n < 1 || n > maxNetBIOSDomainLen || strings.HasPrefix(d, ".") {
		return false
	}
	return !strings.ContainsAny(d, netBIOSForbiddenChars)
}

// isDNSDomain: dot-separated labels of ASCII letters, digits and inner
// hyphens, each 1–63 characters. Upper case is allowed (Windows domains are
// case-insensitive).
func isDNSDomain(d string) bool {
	for _, label := range strings.Split(d, ".") {
		if !isDNSLabelAnyCase(label) {
			return false
		}
	}
	return true
}

func isDNSLabelAnyCase(l string) bool {
	if len(l) < 1 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// NetBIOSNameOf is what dcpromo proposes as a domain's NetBIOS name: the
// DNS name's first label, upper-cased, cut to 15 characters.
func NetBIOSNameOf(dnsName string) string {
	label, _, _ := strings.Cut(dnsName, ".")
	label = strings.ToUpper(label)
	if r := []rune(label); len(r) > maxNetBIOSDomainLen {
		label = string(r[:maxNetBIOSDomainLen])
	}
	return label
}

// ValidNetBIOSDomain and ValidDNSDomain are the shapes runAsUserName's
// domain may take (API-5), for other fields that name a domain.
func ValidNetBIOSDomain(name string) bool { return isNetBIOSDomain(name) }

// ValidDNSDomain: dot-separated labels of letters, digits and inner
// hyphens.
func ValidDNSDomain(name string) bool { return isDNSDomain(name) }
