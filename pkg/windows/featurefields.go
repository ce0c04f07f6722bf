package windows

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// windowsOptionFeatures are the windowsOptions fields whose support starts
// at a Kubernetes version (VER-2). older says what an API server of an
// earlier minor does with the field, and how much that matters.
var windowsOptionFeatures = []struct {
	field   string
	feature string
	older   func(minor int) (string, Severity)
	set     func(*corev1.WindowsSecurityContextOptions) bool
}{
	{"gmsaCredentialSpecName", FeatureGMSA, dropped("the container gets no gMSA identity"),
		func(o *corev1.WindowsSecurityContextOptions) bool { return o.GMSACredentialSpecName != nil }},
	{"gmsaCredentialSpec", FeatureGMSA, dropped("the container gets no gMSA identity"),
		func(o *corev1.WindowsSecurityContextOptions) bool { return o.GMSACredentialSpec != nil }},
	{"runAsUserName", FeatureRunAsUserName, dropped("the container runs as the image's default user"),
		func(o *corev1.WindowsSecurityContextOptions) bool { return o.RunAsUserName != nil }},
	{"hostProcess", FeatureHostProcess, hostProcessBefore,
		func(o *corev1.WindowsSecurityContextOptions) bool { return o.HostProcess != nil && *o.HostProcess }},
}

// dropped: an API server that predates a field drops it on create.
func dropped(effect string) func(int) (string, Severity) {
	return func(int) (string, Severity) {
		return "does not know the field and drops it, so " + effect, SeverityWarning
	}
}

// hostProcessBefore: HostProcess containers were alpha in 1.22 (gate
// WindowsHostProcessContainers, off by default), beta and on by default in
// 1.23 to 1.25, and GA in 1.26.
func hostProcessBefore(minor int) (string, Severity) {
	switch {
	case minor < 22:
		return "does not know the field and drops it, so the pod runs as an ordinary container", SeverityWarning
	case minor == 22:
		return "runs HostProcess pods only with the alpha WindowsHostProcessContainers feature gate turned on", SeverityWarning
	}
	return "has HostProcess containers in beta (WindowsHostProcessContainers gate, on by default)", SeverityInfo
}

// FeatureFieldViolations implements VER-2 for pod specs: the windowsOptions
// fields (pod and containers) that Kubernetes 1.<k8sMinor> predates.
func FeatureFieldViolations(spec *corev1.PodSpec, path *field.Path, k8sMinor int) []Violation {
	if spec == nil {
		return nil
	}
	var out []Violation
	if sc := spec.SecurityContext; sc != nil && sc.WindowsOptions != nil {
		out = append(out, windowsOptionViolations(sc.WindowsOptions, path.Child("securityContext", "windowsOptions"), k8sMinor)...)
	}
	for _, c := range containersOf(spec, path) {
		if sc := c.c.SecurityContext; sc != nil && sc.WindowsOptions != nil {
			out = append(out, windowsOptionViolations(sc.WindowsOptions, c.path().Child("securityContext", "windowsOptions"), k8sMinor)...)
		}
	}
	return out
}

func windowsOptionViolations(opts *corev1.WindowsSecurityContextOptions, path *field.Path, k8sMinor int) []Violation {
	var out []Violation
	for _, f := range windowsOptionFeatures {
		since, _ := FeatureSince(f.feature)
		if !f.set(opts) || k8sMinor >= since {
			continue
		}
		p := path.Child(f.field).String()
		what, severity := f.older(k8sMinor)
		out = append(out, Violation{
			Rule: "VER-2", Path: p, Severity: severity,
			Message: fmt.Sprintf("%s is supported from Kubernetes 1.%d; 1.%d %s", f.field, since, k8sMinor, what),
			Fix:     fmt.Sprintf("upgrade the cluster to Kubernetes 1.%d or newer, or remove %s", since, p),
		})
	}
	return out
}
