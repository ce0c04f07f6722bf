package lint

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Kubernetes minors for rule API-8: spec.os appears in 1.23 and its field
// rules are enforced unconditionally from 1.27.
const (
	osFieldIntroducedMinor = 23
	osFieldEnforcedMinor   = 27
)

// checkAPI reports what the API server rejects (API-1..6) for the pod or
// the pod template, with upstream's words. Templates are checked too: the
// server rejects a Deployment whose template breaks these rules, and older
// clusters accept them but the pods still fail on the node.
func (r *run) checkAPI(w *workload) {
	if w.spec.OS != nil && r.target.Minor < osFieldIntroducedMinor {
		r.report(&w.object, "API-8", SeverityWarning,
			fmt.Sprintf("%s: Kubernetes 1.%d does not know this field and drops it", w.path.Child("os"), r.target.Minor),
			"add a nodeSelector on kubernetes.io/os to place the pod; spec.os needs Kubernetes 1.23 or newer")
	}
	for _, e := range validatePodOS(w.spec, w.path) {
		r.reportFieldError(w, osRule(e), e)
	}
	for _, e := range validateAllWindowsOptions(w.spec, w.path) {
		r.reportFieldError(w, "API-5", e)
	}
	for _, e := range validateHostProcess(w.spec, w.path, r.target.AllowPrivileged) {
		r.reportFieldError(w, "API-6", e)
	}
}

// osRule tells API-1..4 apart by the error's field.
func osRule(e *field.Error) string {
	switch {
	case strings.Contains(e.Field, ".os"):
		return "API-1"
	case strings.HasSuffix(e.Field, "windowsOptions"):
		return "API-4"
	case strings.Contains(e.Field, "ontainers["):
		return "API-3"
	}
	return "API-2"
}

func (r *run) reportFieldError(w *workload, rule string, e *field.Error) {
	fix := fieldFix(rule, e)
	if (rule == "API-2" || rule == "API-3" || rule == "API-4") && r.target.Minor < osFieldEnforcedMinor {
		fix += fmt.Sprintf(" (Kubernetes 1.%d accepts it, 1.27 and newer reject it, and the node ignores or refuses it)", r.target.Minor)
	}
	r.report(&w.object, rule, SeverityError, e.Error(), fix)
}

// fieldFix says what to change for one field error.
func fieldFix(rule string, e *field.Error) string {
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
	// API-6
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
