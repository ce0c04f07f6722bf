package lint

// This file mirrors the API server's pod OS validation (rules API-1..API-6)
// for v1 pod specs, with upstream's field paths and words
// (k8s.io/kubernetes/pkg/apis/core/validation: validateOS, validateLinux,
// validateWindows, validateWindowsSecurityContextOptions,
// validateWindowsHostProcessPod). pkg/windows is meant to export the same
// as ValidatePodSpecOS; until it does, the linter keeps its own copy here.

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const forbiddenWindows = "cannot be set for a windows pod"

// validatePodOS returns API-1 errors for a bad spec.os, else the API-2/3
// (windows) or API-4 (linux) errors. Without spec.os nothing is checked.
func validatePodOS(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	if spec.OS == nil {
		return nil
	}
	osPath := path.Child("os")
	switch spec.OS.Name {
	case "":
		return field.ErrorList{field.Required(osPath.Child("name"), "")}
	case corev1.Linux:
		return validateLinuxPod(spec, path)
	case corev1.Windows:
		return validateWindowsPod(spec, path)
	}
	return field.ErrorList{field.NotSupported(osPath, spec.OS.Name, []string{"linux", "windows"})}
}

// containerVisitor walks init, regular and ephemeral containers in the
// API server's order with their field paths.
func visitContainers(spec *corev1.PodSpec, path *field.Path, visit func(c *corev1.Container, p *field.Path)) {
	for i := range spec.InitContainers {
		visit(&spec.InitContainers[i], path.Child("initContainers").Index(i))
	}
	for i := range spec.Containers {
		visit(&spec.Containers[i], path.Child("containers").Index(i))
	}
	for i := range spec.EphemeralContainers {
		visit((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon), path.Child("ephemeralContainers").Index(i))
	}
}

func validateLinuxPod(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	const msg = "windows options cannot be set for a linux pod"
	if sc := spec.SecurityContext; sc != nil && sc.WindowsOptions != nil {
		errs = append(errs, field.Forbidden(path.Child("securityContext", "windowsOptions"), msg))
	}
	visitContainers(spec, path, func(c *corev1.Container, p *field.Path) {
		if c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil {
			errs = append(errs, field.Forbidden(p.Child("securityContext", "windowsOptions"), msg))
		}
	})
	return errs
}

func validateWindowsPod(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	errs := windowsPodFields(spec, path)
	visitContainers(spec, path, func(c *corev1.Container, p *field.Path) {
		errs = append(errs, windowsContainerFields(c.SecurityContext, p.Child("securityContext"))...)
	})
	return errs
}

// windowsPodFields is API-2, in upstream's order. In the internal API types
// hostUsers, hostPID, hostIPC and shareProcessNamespace live in the pod
// security context, so upstream checks them only when it is set; the v1
// fields are checked the same way to report exactly what the server does.
func windowsPodFields(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	sc := spec.SecurityContext
	if sc == nil && spec.HostUsers == nil && !spec.HostPID && !spec.HostIPC && spec.ShareProcessNamespace == nil {
		return nil
	}
	if sc == nil {
		sc = &corev1.PodSecurityContext{}
	}
	scPath := path.Child("securityContext")
	forbid := func(set bool, p *field.Path) {
		if set {
			errs = append(errs, field.Forbidden(p, forbiddenWindows))
		}
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

// windowsContainerFields is API-3: set at all (false counts) is forbidden.
func windowsContainerFields(sc *corev1.SecurityContext, p *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	var errs field.ErrorList
	forbid := func(set bool, name string) {
		if set {
			errs = append(errs, field.Forbidden(p.Child(name), forbiddenWindows))
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

// validateAllWindowsOptions is API-5 for the pod and every container.
func validateAllWindowsOptions(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if sc := spec.SecurityContext; sc != nil {
		errs = append(errs, validateWindowsOptions(sc.WindowsOptions, path.Child("securityContext", "windowsOptions"))...)
	}
	visitContainers(spec, path, func(c *corev1.Container, p *field.Path) {
		if c.SecurityContext != nil {
			errs = append(errs, validateWindowsOptions(c.SecurityContext.WindowsOptions, p.Child("securityContext", "windowsOptions"))...)
		}
	})
	return errs
}

// Limits of API-5, as upstream names them.
const (
	maxGMSACredentialSpecKiB = 64
	maxRunAsDomainLength     = 256
	maxRunAsUserLength       = 104
)

var (
	ctrlChars        = regexp.MustCompile(`[[:cntrl:]]+`)
	netBIOSDomain    = regexp.MustCompile(`^[^\\/:\*\?"<>|\.][^\\/:\*\?"<>|]{0,14}$`)
	dnsDomain        = regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$`)
	badUserChars     = regexp.MustCompile(`["/\\:;|=,\+\*\?<>@\[\]]`)
	onlyDotsOrSpaces = regexp.MustCompile(`^[\. ]+$`)
)

func validateWindowsOptions(o *corev1.WindowsSecurityContextOptions, p *field.Path) field.ErrorList {
	if o == nil {
		return nil
	}
	var errs field.ErrorList
	if o.GMSACredentialSpecName != nil {
		for _, msg := range validation.IsDNS1123Subdomain(*o.GMSACredentialSpecName) {
			errs = append(errs, field.Invalid(p.Child("gmsaCredentialSpecName"), o.GMSACredentialSpecName, msg))
		}
	}
	if o.GMSACredentialSpec != nil {
		if l := len(*o.GMSACredentialSpec); l == 0 {
			errs = append(errs, field.Invalid(p.Child("gmsaCredentialSpec"), o.GMSACredentialSpec, "gmsaCredentialSpec cannot be an empty string"))
		} else if l > maxGMSACredentialSpecKiB*1024 {
			errs = append(errs, field.Invalid(p.Child("gmsaCredentialSpec"), o.GMSACredentialSpec,
				fmt.Sprintf("gmsaCredentialSpec size must be under %d KiB", maxGMSACredentialSpecKiB)))
		}
	}
	if o.RunAsUserName != nil {
		for _, msg := range runAsUserNameProblems(*o.RunAsUserName) {
			errs = append(errs, field.Invalid(p.Child("runAsUserName"), o.RunAsUserName, msg))
		}
	}
	return errs
}

// runAsUserNameProblems returns upstream's messages for DOMAIN\user names.
func runAsUserNameProblems(name string) []string {
	if name == "" {
		return []string{"runAsUserName cannot be an empty string"}
	}
	if ctrlChars.MatchString(name) {
		return []string{"runAsUserName cannot contain control characters"}
	}
	parts := strings.Split(name, `\`)
	if len(parts) > 2 {
		return []string{"runAsUserName cannot contain more than one backslash"}
	}
	var msgs []string
	user, domain, hasDomain := parts[0], "", len(parts) == 2
	if hasDomain {
		domain, user = parts[0], parts[1]
	}
	if len(domain) >= maxRunAsDomainLength {
		msgs = append(msgs, fmt.Sprintf("runAsUserName's Domain length must be under %d characters", maxRunAsDomainLength))
	}
	if hasDomain && !netBIOSDomain.MatchString(domain) && !dnsDomain.MatchString(domain) {
		msgs = append(msgs, "runAsUserName's Domain doesn't match the NetBios nor the DNS format")
	}
	if l := len(user); l == 0 {
		msgs = append(msgs, "runAsUserName's User cannot be empty")
	} else if l > maxRunAsUserLength {
		msgs = append(msgs, fmt.Sprintf("runAsUserName's User length must not be longer than %d characters", maxRunAsUserLength))
	}
	if onlyDotsOrSpaces.MatchString(user) {
		msgs = append(msgs, `runAsUserName's User cannot contain only periods or spaces`)
	}
	if badUserChars.MatchString(user) {
		msgs = append(msgs, `runAsUserName's User cannot contain the following characters: "/\:;|=,+*?<>@[]`)
	}
	return msgs
}

// validateHostProcess is API-6 with upstream's messages.
func validateHostProcess(spec *corev1.PodSpec, path *field.Path, allowPrivileged bool) field.ErrorList {
	var errs field.ErrorList
	var podHP *bool
	if sc := spec.SecurityContext; sc != nil && sc.WindowsOptions != nil {
		podHP = sc.WindowsOptions.HostProcess
	}
	containers, hostProcess := 0, 0
	visitContainers(spec, path, func(c *corev1.Container, p *field.Path) {
		containers++
		var hp *bool
		if c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil {
			hp = c.SecurityContext.WindowsOptions.HostProcess
		}
		if podHP != nil && hp != nil && *podHP != *hp {
			errs = append(errs, field.Invalid(p.Child("securityContext", "windowsOptions", "hostProcess"), *hp,
				fmt.Sprintf("pod hostProcess value must be identical if both are specified, was %v", *podHP)))
		}
		if (hp != nil && *hp) || (hp == nil && podHP != nil && *podHP) {
			hostProcess++
		}
	})
	if hostProcess == 0 {
		return errs
	}
	if hostProcess != containers {
		errs = append(errs, field.Invalid(path, "", "If pod contains any hostProcess containers then all containers must be HostProcess containers"))
	}
	if !spec.HostNetwork {
		errs = append(errs, field.Invalid(path.Child("hostNetwork"), false, "hostNetwork must be true if pod contains any hostProcess containers"))
	}
	if !allowPrivileged {
		errs = append(errs, field.Forbidden(path, "hostProcess containers are disallowed by cluster policy"))
	}
	return errs
}

// isHostProcess reports whether the pod runs HostProcess containers.
func isHostProcess(spec *corev1.PodSpec) bool {
	if sc := spec.SecurityContext; sc != nil && sc.WindowsOptions != nil && sc.WindowsOptions.HostProcess != nil && *sc.WindowsOptions.HostProcess {
		return true
	}
	hp := false
	visitContainers(spec, field.NewPath("spec"), func(c *corev1.Container, _ *field.Path) {
		if sc := c.SecurityContext; sc != nil && sc.WindowsOptions != nil && sc.WindowsOptions.HostProcess != nil && *sc.WindowsOptions.HostProcess {
			hp = true
		}
	})
	return hp
}
