package v1alpha1

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Control plane components whose flags the controlPlane section sets.
var controlPlaneComponents = []string{"kube-apiserver", "kube-scheduler", "kube-controller-manager"}

// ComponentFlags are upstream command-line flags of one component, keyed by
// the flag's name without the leading dashes ("kube-api-qps"). Values may be
// written as YAML strings, numbers or booleans; they reach the flag as text.
type ComponentFlags map[string]string

// UnmarshalJSON accepts any scalar value, so kube-api-qps: 200 needs no
// quotes; lists and maps are errors.
func (f *ComponentFlags) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	out := make(ComponentFlags, len(raw))
	for name, v := range raw {
		var s string
		switch {
		case json.Unmarshal(v, &s) == nil:
		case len(v) > 0 && (v[0] == '{' || v[0] == '[' || bytes.Equal(v, []byte("null"))):
			return fmt.Errorf("flag %q: value must be a string, number or boolean, not %s", name, v)
		default:
			s = string(v) // a number or boolean, exactly as written
		}
		out[name] = s
	}
	*f = out
	return nil
}

// validateControlPlane checks what needs no upstream code: the component
// names and the shape of the flag names. Whether a flag exists, takes the
// value and is not one winkube sets itself is checked when the control plane
// starts, against the upstream commands (controlplane.Options.Validate).
func validateControlPlane(cp map[string]ComponentFlags, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, comp := range sortedKeys(cp) {
		p := path.Key(comp)
		if !slices.Contains(controlPlaneComponents, comp) {
			errs = append(errs, field.NotSupported(p, comp, controlPlaneComponents))
			continue
		}
		for _, name := range sortedKeys(cp[comp]) {
			if name == "" || strings.HasPrefix(name, "-") || strings.ContainsAny(name, "= ") {
				errs = append(errs, field.Invalid(p.Key(name), name,
					"must be an upstream flag name without leading dashes, such as kube-api-qps"))
			}
		}
	}
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ControlPlaneFlags returns the controlPlane section as plain maps, as
// controlplane.Options.Flags takes it.
func (c *Cluster) ControlPlaneFlags() map[string]map[string]string {
	if len(c.ControlPlane) == 0 {
		return nil
	}
	out := make(map[string]map[string]string, len(c.ControlPlane))
	for comp, flags := range c.ControlPlane {
		out[comp] = flags
	}
	return out
}
