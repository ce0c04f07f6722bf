package network

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/windows"
)

// Kube-proxy's Windows feature gates (KP-2).
const (
	gateWinDSR     = "WinDSR"
	gateWinOverlay = "WinOverlay"
)

// latestMinor stands in for an unknown cluster version.
const latestMinor = 36

// gateStages is when a gate became alpha (off by default), beta (on) and
// GA (on and locked); the GA minors come from pkg/windows (VER-2).
var gateStages = map[string]struct{ alpha, beta int }{
	gateWinDSR:     {alpha: 14, beta: 33},
	gateWinOverlay: {alpha: 14, beta: 20},
}

// gateEnabled reports whether a Windows kube-proxy gate is on in
// Kubernetes 1.<minor> with the --feature-gates values given; an error is
// what kube-proxy exits with (a gate it does not know yet, or turning off
// a locked GA gate).
func gateEnabled(name string, minor int, set map[string]bool) (bool, error) {
	if minor <= 0 {
		minor = latestMinor
	}
	st := gateStages[name]
	ga, _ := windows.FeatureSince(name)
	v, explicit := set[name]
	switch {
	case minor < st.alpha:
		if explicit {
			return false, fmt.Errorf("--feature-gates: unrecognized feature gate: %s (Kubernetes 1.%d)", name, minor)
		}
		return false, nil
	case minor >= ga:
		if explicit && !v {
			return true, fmt.Errorf("--feature-gates: cannot set feature gate %s to false, feature is locked to true (GA since 1.%d)", name, ga)
		}
		return true, nil
	case explicit:
		return v, nil
	}
	return minor >= st.beta, nil
}

// parseGates reads --feature-gates "A=true,B=false".
func parseGates(s string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if !ok || err != nil {
			return nil, fmt.Errorf("--feature-gates %q: want NAME=true|false pairs separated by commas", s)
		}
		out[strings.TrimSpace(k)] = b
	}
	return out, nil
}
