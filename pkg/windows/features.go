package windows

// Feature is a kube-proxy (winkernel) capability that depends on the node's
// Windows build (KP-5).
type Feature string

// KP-5 features.
const (
	// SessionAffinity: sessionAffinity: ClientIP.
	SessionAffinity Feature = "SessionAffinity"
	// DSR: direct server return (--enable-dsr, WinDSR gate).
	DSR Feature = "DSR"
	// PreserveDestination: service annotation preserve-destination: "true"
	// together with DSR.
	PreserveDestination Feature = "PreserveDestination"
	// DualStack: IPv4/IPv6 dual-stack (l2bridge only, LIM-13).
	DualStack Feature = "DualStack"
	// ClientIPPreservation: externalTrafficPolicy: Local together with DSR.
	ClientIPPreservation Feature = "ClientIPPreservation"
)

// featureMinBuild is the KP-5 matrix from seed 001. Seed 000 (1.17–1.20
// docs) gave older, preview-era builds, kept here for reference:
//   - SessionAffinity: Windows Server vNext Insider Preview 19551
//   - DSR: Windows Server 2004 (19041)
//   - PreserveDestination: 1903 (18362), unchanged
//   - DualStack: 2004 (19041; IPv6 needs 10.0.19041.610), l2bridge only
//   - ClientIPPreservation: not listed
//
// Seed 001 names shipped releases instead, which is what a node runs.
var featureMinBuild = map[Feature]int{
	SessionAffinity:      Build2022,
	DSR:                  Build2019,
	PreserveDestination:  Build1903,
	DualStack:            Build2019,
	ClientIPPreservation: Build2019,
}

// MinBuild is the first Windows build with the feature (KP-5).
func MinBuild(f Feature) (int, bool) {
	b, ok := featureMinBuild[f]
	return b, ok
}

// Supports implements KP-5: whether a node of build b has the feature.
// Unsupported features make kube-proxy log and fall back, not fail.
func Supports(feature Feature, b Build) bool {
	min, ok := featureMinBuild[feature]
	if !ok || b.Major != windowsMajor || b.Minor != windowsMinor {
		return false
	}
	return b.Build >= min
}
