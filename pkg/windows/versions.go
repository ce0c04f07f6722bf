package windows

// Kubernetes minor versions named by the versioned rules.
const (
	// IdentifyPodOS (spec.os): alpha 1.23 (off by default), beta 1.24 (on by
	// default), GA 1.25, and the feature gate was removed in 1.27 (API-8).
	identifyPodOSAlpha = 23
	identifyPodOSBeta  = 24
	identifyPodOSGA    = 25
	identifyPodOSFixed = 27
)

// OSFieldEnforced implements API-8: whether an API server of Kubernetes
// 1.<k8sMinor>, with default feature gates, applies the spec.os rules
// (API-1 … API-4). The gate was alpha in 1.23 and off by default, so 1.23 is
// treated as not enforcing; it was beta in 1.24 and on by default, so 1.24
// is treated as enforcing, as are 1.25 (GA) and later. A 1.24 cluster that
// turned the gate off accepts everything; see IdentifyPodOSStage.
func OSFieldEnforced(k8sMinor int) bool {
	return k8sMinor >= identifyPodOSBeta
}

// OSFieldAlwaysEnforced reports whether an API server of Kubernetes
// 1.<k8sMinor> applies the spec.os rules (API-1 … API-6) whatever its
// feature gates: from 1.27, when the IdentifyPodOS gate was removed. Before
// that a cluster may have turned the gate off, so an admission webhook has
// to apply them itself.
func OSFieldAlwaysEnforced(k8sMinor int) bool {
	return k8sMinor >= identifyPodOSFixed
}

// IdentifyPodOSStage names the IdentifyPodOS feature stage in a Kubernetes
// minor version: "" (absent), "alpha", "beta", "GA" or "always" once the
// gate was removed and the rules are unconditional (1.27+).
func IdentifyPodOSStage(k8sMinor int) string {
	switch {
	case k8sMinor >= identifyPodOSFixed:
		return "always"
	case k8sMinor >= identifyPodOSGA:
		return "GA"
	case k8sMinor >= identifyPodOSBeta:
		return "beta"
	case k8sMinor >= identifyPodOSAlpha:
		return "alpha"
	default:
		return ""
	}
}

// Service backend limits (LIM-11).
const (
	// ServiceBackendLimitLegacy is the limit seed 001 and the upstream
	// Windows networking page document: more than 64 backend pods (or unique
	// destination addresses) for one Service is unsupported. HNS refused the
	// 65th destination ("invalid number of destinations",
	// kubernetes/kubernetes#98680); the docs gained the line in
	// kubernetes/website#26465 (February 2021, the 1.20/1.21 docs).
	ServiceBackendLimitLegacy = 64
	// ServiceBackendLimitCurrent is the raised limit. Windows lifted it to
	// 1024 in a 2022 servicing update (microsoft/Windows-Containers#93; AWS
	// documented 1024 for EKS in August 2022), and the upstream docs were
	// asked to follow in December 2025 (kubernetes/kubernetes#135518,
	// kubernetes/website#53512).
	ServiceBackendLimitCurrent = 1024
	// serviceBackendLimitCutover is the first minor whose docs could carry
	// 1024: the correction was proposed against the docs of the 1.35 release
	// (December 2025). Everything older keeps the documented 64.
	serviceBackendLimitCutover = 35
)

// ServiceBackendLimit implements LIM-11: the most backend pods (unique
// destinations) one Service may have on Windows nodes, by the Kubernetes
// minor version whose documentation the cluster follows.
func ServiceBackendLimit(k8sMinor int) int {
	if k8sMinor >= serviceBackendLimitCutover {
		return ServiceBackendLimitCurrent
	}
	return ServiceBackendLimitLegacy
}

// supportedReleases is the VER-1 table: Windows Server releases (by name,
// LTSC first) supported as nodes per Kubernetes minor. 1.17–1.20 come from
// seed 000 and 1.27 from seed 002; 1.14–1.16 and 1.21–1.26 from the
// upstream Windows intro pages of those releases.
var supportedReleases = []struct {
	minor    int
	releases []string
}{
	{14, []string{"2019", "1809"}},
	{15, []string{"2019", "1809", "1903"}},
	{17, []string{"2019", "1809"}},
	{18, []string{"2019", "1809", "1903", "1909"}},
	{19, []string{"2019", "1909", "2004"}},
	{21, []string{"2019", "2004", "20H2"}},
	{23, []string{"2019", "2022", "20H2"}},
	{27, []string{"2019", "2022", "20H2"}},
}

// firstWindowsMinor is the first Kubernetes minor with production Windows
// node support (VER-2).
const firstWindowsMinor = 14

// SupportedWindowsReleases implements VER-1: the Windows Server release names
// supported as nodes by Kubernetes 1.<k8sMinor>. A minor between two table
// rows uses the older row (support lists change only when a row says so);
// minors after the last row use the last row; before 1.14 there is no
// supported Windows release (nil). The control plane is always Linux.
func SupportedWindowsReleases(k8sMinor int) []string {
	if k8sMinor < firstWindowsMinor {
		return nil
	}
	var found []string
	for _, row := range supportedReleases {
		if row.minor <= k8sMinor {
			found = row.releases
		}
	}
	return append([]string(nil), found...)
}

// IsSupportedWindowsBuild reports whether a node build is on the VER-1 list
// for the Kubernetes minor.
func IsSupportedWindowsBuild(k8sMinor int, build int) bool {
	for _, name := range SupportedWindowsReleases(k8sMinor) {
		if r, ok := ReleaseByName(name); ok && r.Build == build {
			return true
		}
	}
	return false
}

// FeatureVersion is one VER-2 row: the Kubernetes minor from which a Windows
// feature is available (at the stage given).
type FeatureVersion struct {
	Name  string
	Minor int
	Stage string
}

// Names of VER-2 features.
const (
	FeatureWindowsProduction     = "WindowsProductionSupport"
	FeatureGMSA                  = "GMSA"
	FeatureRunAsUserName         = "RunAsUserName"
	FeatureWindowsBuildLabel     = "WindowsBuildLabel"
	FeatureContainerdStable      = "ContainerdStable"
	FeatureKubeProxyDSR          = "DSR"
	FeatureKubeProxyPreserveDest = "PreserveDestination"
	FeatureKubeProxyAffinity     = "SessionAffinity"
	FeatureHostProcess           = "HostProcessContainers"
	FeatureIdentifyPodOS         = "IdentifyPodOS"
	FeatureDockershimRemoved     = "DockershimRemoved"
	FeatureMemoryEviction        = "WindowsMemoryPressureEviction"
	FeatureWinDSRGA              = "WinDSR"
	FeatureWinOverlayGA          = "WinOverlay"
)

// featureVersions is the VER-2 table plus the versioned facts of API-8,
// KLT-3, KLT-10 and KP-2.
var featureVersions = []FeatureVersion{
	{FeatureWindowsProduction, 14, "GA"},
	{FeatureGMSA, 14, "alpha"},
	{FeatureKubeProxyDSR, 15, "alpha"},
	{FeatureKubeProxyPreserveDest, 15, "alpha"},
	{FeatureRunAsUserName, 16, "alpha"},
	{FeatureWindowsBuildLabel, 17, "GA"},
	{FeatureKubeProxyAffinity, 19, "GA"},
	{FeatureContainerdStable, 20, "GA"},
	{FeatureDockershimRemoved, 24, "GA"},
	{FeatureIdentifyPodOS, 25, "GA"},
	{FeatureHostProcess, 26, "GA"},
	{FeatureMemoryEviction, 31, "GA"},
	{FeatureWinDSRGA, 34, "GA"},
	{FeatureWinOverlayGA, 34, "GA"},
}

// FeatureSince returns the first Kubernetes minor with the named feature.
func FeatureSince(name string) (int, bool) {
	for _, f := range featureVersions {
		if f.Name == name {
			return f.Minor, true
		}
	}
	return 0, false
}

// FeatureAvailable reports whether Kubernetes 1.<k8sMinor> has the feature.
func FeatureAvailable(name string, k8sMinor int) bool {
	since, ok := FeatureSince(name)
	return ok && k8sMinor >= since
}

// DockershimAvailable reports whether the kubelet can still use Docker
// through dockershim (KLT-10): removed in 1.24.
func DockershimAvailable(k8sMinor int) bool {
	return !FeatureAvailable(FeatureDockershimRemoved, k8sMinor)
}
