package v1alpha1

import "testing"

// kubernetesVersion names a release: kubeversion's forms, without the
// bare minor and build suffixes only servers report.
func TestParseKubernetesMinor(t *testing.T) {
	good := map[string]int{"v1.27.16": 27, "1.27": 27, "v1.30": 30, "v1.36.0-rc.1": 36, DefaultKubernetesVersion: 36}
	for v, want := range good {
		if got, err := ParseKubernetesMinor(v); err != nil || got != want {
			t.Errorf("ParseKubernetesMinor(%q) = %d, %v; want %d", v, got, err, want)
		}
	}
	for _, v := range []string{"", "27", "v27", "2.0", "1.x", "v1.27.3+k3s1", " v1.27", "1.27-rc.1", "v1.27.x"} {
		if got, err := ParseKubernetesMinor(v); err == nil {
			t.Errorf("ParseKubernetesMinor(%q) = %d, want an error", v, got)
		}
	}
}
