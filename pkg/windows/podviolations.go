package windows

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// PodTarget is what the pod spec rules need to know of where a pod goes.
type PodTarget struct {
	// Minor is the cluster's Kubernetes minor: which OS field rules its
	// API server enforces (API-8) and which fields it knows (VER-2).
	Minor int
	// AllowPrivileged mirrors kube-apiserver --allow-privileged (API-6).
	AllowPrivileged bool
	// Admission leaves out the API-1..6 rejections an API server of Minor
	// makes itself: a webhook runs in front of it and need not repeat them.
	Admission bool
	// Windows says the pod runs Windows containers: the LIM-* rules apply.
	Windows bool
	// Runtime is the Windows nodes' runtime, RuntimeContainerd or
	// RuntimeDocker (LIM-7 and LIM-14 depend on it).
	Runtime string
	// Entrypoint is an image's default entrypoint and cmd, where the
	// caller knows them (LIM-21 needs them for a container without a
	// command); nil leaves such containers unchecked.
	Entrypoint func(image string) (entrypoint, cmd []string, ok bool)
}

// PodViolations is every API-*, VER-* and LIM-* problem of a pod spec for
// a target, each with its rule, field path and fix. path is the spec's
// path (spec, or spec.template.spec for a workload). LIM-15 is left out
// when spec.os is set: API-3 already rejects privileged then.
func PodViolations(spec *corev1.PodSpec, path *field.Path, t PodTarget) []Violation {
	if spec == nil {
		return nil
	}
	var out []Violation
	if spec.OS != nil && !OSFieldEnforced(t.Minor) {
		out = append(out, Violation{Rule: "API-8", Path: path.Child("os").String(), Severity: SeverityWarning,
			Message: fmt.Sprintf("Kubernetes 1.%d does not know this field (IdentifyPodOS is beta from 1.24) and drops it", t.Minor),
			Fix:     "add a nodeSelector on kubernetes.io/os to place the pod; spec.os needs Kubernetes 1.24 or newer"})
	}
	if !t.Admission || !OSFieldAlwaysEnforced(t.Minor) {
		for _, e := range apiErrors(spec, path, ValidationOptions{AllowPrivileged: t.AllowPrivileged}) {
			out = append(out, Violation{Rule: e.rule, Path: e.err.Field, Message: e.err.ErrorBody(),
				Fix: apiFix(e.rule, e.err, t.Minor), Severity: SeverityError})
		}
	}
	out = append(out, FeatureFieldViolations(spec, path, t.Minor)...)
	if !t.Windows {
		return out
	}
	for _, v := range PodLimitationsAt(spec, t.Runtime, path) {
		if v.Rule == "LIM-15" && spec.OS != nil {
			continue // API-3 already rejects privileged with spec.os set
		}
		out = append(out, v)
	}
	out = append(out, ServiceLogs(spec, path, t.Entrypoint)...)
	return out
}

// apiError is one API server rejection with the rule it comes from.
type apiError struct {
	rule string
	err  *field.Error
}

// apiErrors runs the checks in the API server's order, each tagged with
// its rule where it is made.
func apiErrors(spec *corev1.PodSpec, path *field.Path, opts ValidationOptions) []apiError {
	if spec == nil {
		return nil
	}
	var out []apiError
	add := func(rule string, errs field.ErrorList) {
		for _, e := range errs {
			out = append(out, apiError{rule, e})
		}
	}
	add("API-5", validateAllWindowsOptions(spec, path))
	add("API-6", validateHostProcess(spec, path, opts))
	add("API-2", validatePodResourcesOS(spec, path))
	if spec.OS == nil {
		return out
	}
	osErrs := validatePodOS(spec.OS, path.Child("os"))
	switch {
	case len(osErrs) > 0:
		add("API-1", osErrs)
	case spec.OS.Name == corev1.Linux:
		add("API-4", ValidateLinuxPod(spec, path))
	case spec.OS.Name == corev1.Windows:
		add("API-2", windowsPodFields(spec, path))
		for _, ref := range containersOf(spec, path) {
			add("API-3", windowsContainerFields(ref.c.SecurityContext, ref.path().Child("securityContext")))
		}
	}
	return out
}

// apiFix says what to change for one API server rejection. Before the
// API server enforces API-2..4 (API-8) it accepts the field, and the
// node ignores or refuses it.
func apiFix(rule string, e *field.Error, minor int) string {
	fix := apiFieldFix(rule, e)
	if (rule == "API-2" || rule == "API-3" || rule == "API-4") && !OSFieldEnforced(minor) {
		fix += fmt.Sprintf(" (Kubernetes 1.%d accepts it but newer API servers reject it, and the node ignores or refuses it)", minor)
	}
	return fix
}

func apiFieldFix(rule string, e *field.Error) string {
	switch rule {
	case "API-1":
		return "set spec.os.name to linux or windows"
	case "API-2", "API-3":
		return fmt.Sprintf("remove %s (Windows has no such setting), or set spec.os.name to linux if this is a Linux pod", e.Field)
	case "API-4":
		return fmt.Sprintf("remove %s, or set spec.os.name to windows if this is a Windows pod", e.Field)
	case "API-5":
		return fmt.Sprintf("correct %s", e.Field)
	}
	// API-6: which of its checks failed shows in the field.
	switch {
	case strings.HasSuffix(e.Field, "hostNetwork"):
		return fmt.Sprintf("set %s: true", e.Field)
	case strings.HasSuffix(e.Field, "hostProcess"):
		return fmt.Sprintf("make %s equal to the pod's securityContext.windowsOptions.hostProcess", e.Field)
	case e.Type == field.ErrorTypeForbidden:
		return "run the API server with --allow-privileged=true, or drop hostProcess"
	}
	return "set windowsOptions.hostProcess: true on every container, or on none"
}
