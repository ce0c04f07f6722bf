package gmsa

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The windowsOptions fields a refusal is about.
const (
	fieldName     = "gmsaCredentialSpecName"
	fieldContents = "gmsaCredentialSpec"
)

// Refusal is the windows-gmsa webhook's refusal of a pod: the rule of the
// book it enforces (GMSA-1, GMSA-2, GMSA-3) and upstream's words, as the
// API server quotes them after `admission webhook ... denied the request:`.
type Refusal struct {
	Rule    string
	Message string
	// Path is the field refused, under spec (e.g.
	// spec.containers[0].securityContext.windowsOptions.gmsaCredentialSpec).
	Path string
}

// Review is what the windows-gmsa webhooks say of creating pod in
// namespace, asking specs: the mutating webhook resolves every
// gmsaCredentialSpecName into its contents (GMSA-1), then the validating
// one checks `use` (GMSA-2) and the contents (GMSA-3). Nil when both
// admit it. spec is the path of the pod spec (spec, or a template's).
// lint and doctor call it with StaticCredSpecs, so they refuse what the
// webhook refuses, in its words.
func Review(ctx context.Context, specs CredSpecs, pod *corev1.Pod, namespace string, spec *field.Path) *Refusal {
	if pod.Spec.ServiceAccountName == "" {
		// The API server's ServiceAccount admission plugin names the
		// default account before any webhook sees the pod.
		pod = pod.DeepCopy()
		pod.Spec.ServiceAccountName = "default"
	}
	wh := New(specs)
	if _, err := wh.mutateCreate(ctx, pod); err != nil {
		return refusalOf(err, spec)
	}
	resolved := pod.DeepCopy()
	_ = eachWindowsOptions(resolved, func(opts *corev1.WindowsSecurityContextOptions, _ resourceKind, _ string, _ int) *admissionError {
		if opts.GMSACredentialSpecName != nil && opts.GMSACredentialSpec == nil {
			contents, _, _ := specs.RetrieveCredSpecContents(ctx, *opts.GMSACredentialSpecName)
			opts.GMSACredentialSpec = &contents
		}
		return nil
	})
	if _, err := wh.validateCreate(ctx, resolved, namespace); err != nil {
		return refusalOf(err, spec)
	}
	return nil
}

func refusalOf(err *admissionError, spec *field.Path) *Refusal {
	at := spec.Child("securityContext")
	if err.at.container >= 0 {
		at = spec.Child("containers").Index(err.at.container).Child("securityContext")
	}
	at = at.Child("windowsOptions")
	if err.at.field != "" {
		at = at.Child(err.at.field)
	}
	return &Refusal{Rule: err.rule, Message: err.Error(), Path: at.String()}
}
