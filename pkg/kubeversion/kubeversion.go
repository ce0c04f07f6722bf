// Package kubeversion is the one place winkube knows which Kubernetes
// release it runs and how to read a Kubernetes version. Every default
// (the release `winkube up` runs, the minor lint targets unless told) and every
// --kubernetes-version or kubernetesVersion string goes through here, so a
// bump of k8s.io/kubernetes in go.mod is one edit, checked by a test.
package kubeversion

import (
	"fmt"
	"strconv"
	"strings"
)

// Default is the k8s.io/kubernetes release go.mod builds in: the control
// plane serves it, the emulated kubelets report it, the add-ons' images are
// tagged with it. It is a constant (not read from the build info at run
// time) so other constants, such as image references, can be built from it;
// TestDefaultIsBuiltIn holds it to go.mod.
const Default = "v1.36.3"

// DefaultMinor is Default's minor version, the one lint, the webhook and the
// planner assume when nothing else is known.
const DefaultMinor = 36

// Version is a parsed Kubernetes 1.x version.
type Version struct {
	Minor int
	// Patch is -1 when the input named no patch ("1.27").
	Patch int
	// Pre is a pre-release suffix without its dash ("rc.1"), if any.
	Pre string
}

// Parse reads the forms users and servers write: "v1.27.3", "1.27",
// "v1.27", "1.27.0-rc.1", "1.27+" (a server's minor such as GKE reports it,
// joined to its major) and a bare minor "27". Build metadata after "+" is
// ignored.
func Parse(v string) (Version, error) {
	s := strings.TrimPrefix(strings.TrimSpace(v), "v")
	s, _, _ = strings.Cut(s, "+")
	s, pre, _ := strings.Cut(s, "-")
	bad := fmt.Errorf("invalid Kubernetes version %q: want 1.<minor>[.<patch>], such as %s or 1.27", v, Default)
	parts := strings.Split(s, ".")
	if len(parts) == 1 && pre == "" {
		// A bare minor; 0 and 1 would read as a major version.
		if n, err := strconv.Atoi(parts[0]); err == nil && n > 1 {
			return Version{Minor: n, Patch: -1}, nil
		}
		return Version{}, bad
	}
	if parts[0] != "1" || len(parts) > 3 {
		return Version{}, bad
	}
	out := Version{Patch: -1, Pre: pre}
	var err error
	if out.Minor, err = number(parts[1]); err != nil {
		return Version{}, bad
	}
	if len(parts) == 3 {
		if out.Patch, err = number(parts[2]); err != nil {
			return Version{}, fmt.Errorf("invalid Kubernetes version %q: patch %q is not a number", v, parts[2])
		}
	} else if pre != "" {
		return Version{}, bad // a pre-release needs a patch: v1.27.0-rc.1
	}
	return out, nil
}

// ParseMinor is Parse's minor version.
func ParseMinor(v string) (int, error) {
	parsed, err := Parse(v)
	return parsed.Minor, err
}

// ServerMinor reads the minor of an API server's /version answer (its
// Major and Minor fields, "1" and "27+").
func ServerMinor(major, minor string) (int, error) {
	return ParseMinor(major + "." + minor)
}

// Full renders the version as a release tag, "v1.27.0" for "1.27", since
// images and downloads are tagged with a patch.
func (v Version) Full() string {
	patch := v.Patch
	if patch < 0 {
		patch = 0
	}
	s := fmt.Sprintf("v1.%d.%d", v.Minor, patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}

// number reads a non-negative decimal number.
func number(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return n, nil
}
