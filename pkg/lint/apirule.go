package lint

import "k8s.io/apimachinery/pkg/util/validation/field"

// APIRule names the API-* rule a field error of
// windows.ValidatePodSpecOSWithOptions breaks and says what to change, as
// lint reports it; the admission webhook words its answers the same way.
func APIRule(e *field.Error) (rule, fix string) {
	rule = apiRule(e)
	return rule, fieldFix(rule, e)
}
