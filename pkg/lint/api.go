package lint

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

// checkAPI reports what the API server rejects (API-1..6) for the pod or
// the pod template, in upstream's words (pkg/windows mirrors the server's
// validation). Templates are checked too: the server rejects a Deployment
// whose template breaks these rules, and clusters that do not enforce them
// (API-8) accept the pods, which then fail or misbehave on the node.
func (r *run) checkAPI(w *workload) {
	if w.spec.OS != nil && !windows.OSFieldEnforced(r.target.Minor) {
		r.report(&w.object, "API-8", rules.SeverityWarning,
			fmt.Sprintf("%s: Kubernetes 1.%d does not know this field (IdentifyPodOS is beta from 1.24) and drops it", w.path.Child("os"), r.target.Minor),
			"add a nodeSelector on kubernetes.io/os to place the pod; spec.os needs Kubernetes 1.24 or newer")
	}
	opts := windows.ValidationOptions{AllowPrivileged: r.target.AllowPrivileged}
	for _, e := range windows.ValidatePodSpecOSWithOptions(w.spec, w.path, opts) {
		r.reportFieldError(w, apiRule(e), e)
	}
}

// apiRule tells API-1..6 apart by the error's field and detail.
func apiRule(e *field.Error) string {
	switch {
	case strings.HasSuffix(e.Field, ".os") || strings.HasSuffix(e.Field, ".os.name"):
		return "API-1"
	case strings.Contains(strings.ToLower(e.Detail), "hostprocess") || strings.HasSuffix(e.Field, ".hostProcess"):
		return "API-6"
	case strings.HasSuffix(e.Field, "windowsOptions") && e.Type == field.ErrorTypeForbidden:
		return "API-4"
	case strings.Contains(e.Field, "windowsOptions."):
		return "API-5"
	case strings.Contains(e.Field, "ontainers["):
		return "API-3"
	}
	return "API-2"
}

func (r *run) reportFieldError(w *workload, rule string, e *field.Error) {
	fix := fieldFix(rule, e)
	if (rule == "API-2" || rule == "API-3" || rule == "API-4") && !windows.OSFieldEnforced(r.target.Minor) {
		fix += fmt.Sprintf(" (Kubernetes 1.%d accepts it but newer API servers reject it, and the node ignores or refuses it)", r.target.Minor)
	}
	r.report(&w.object, rule, rules.SeverityError, e.Error(), fix)
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
