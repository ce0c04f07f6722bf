package windows

import (
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestOSFieldEnforced(t *testing.T) {
	// rule: API-8
	tests := []struct {
		minor    int
		enforced bool
		stage    string
	}{
		{20, false, ""},
		{22, false, ""},
		{23, false, "alpha"},
		{24, true, "beta"},
		{25, true, "GA"},
		{26, true, "GA"},
		{27, true, "always"},
		{36, true, "always"},
	}
	for _, tt := range tests {
		if got := OSFieldEnforced(tt.minor); got != tt.enforced {
			t.Errorf("OSFieldEnforced(%d) = %v, want %v", tt.minor, got, tt.enforced)
		}
		if got, want := OSFieldAlwaysEnforced(tt.minor), tt.stage == "always"; got != want {
			t.Errorf("OSFieldAlwaysEnforced(%d) = %v, want %v", tt.minor, got, want)
		}
		if got := IdentifyPodOSStage(tt.minor); got != tt.stage {
			t.Errorf("IdentifyPodOSStage(%d) = %q, want %q", tt.minor, got, tt.stage)
		}
	}
}

func TestServiceBackendLimit(t *testing.T) {
	// rule: LIM-11
	tests := []struct{ minor, want int }{
		{18, 64}, {21, 64}, {27, 64}, {34, 64}, {35, 1024}, {36, 1024},
	}
	for _, tt := range tests {
		if got := ServiceBackendLimit(tt.minor); got != tt.want {
			t.Errorf("ServiceBackendLimit(%d) = %d, want %d", tt.minor, got, tt.want)
		}
	}
}

func TestSupportedWindowsReleases(t *testing.T) {
	// rule: VER-1
	tests := []struct {
		minor int
		want  []string
	}{
		{13, nil},
		{14, []string{"2019", "1809"}},
		{16, []string{"2019", "1809", "1903"}},
		{17, []string{"2019", "1809"}},
		{18, []string{"2019", "1809", "1903", "1909"}},
		{19, []string{"2019", "1909", "2004"}},
		{20, []string{"2019", "1909", "2004"}},
		{22, []string{"2019", "2004", "20H2"}},
		{23, []string{"2019", "2022", "20H2"}},
		{27, []string{"2019", "2022", "20H2"}},
		{36, []string{"2019", "2022", "20H2"}},
	}
	for _, tt := range tests {
		if got := SupportedWindowsReleases(tt.minor); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SupportedWindowsReleases(%d) = %v, want %v", tt.minor, got, tt.want)
		}
	}
	// Every name in the table is a known release.
	for _, row := range supportedReleases {
		for _, n := range row.releases {
			if _, ok := ReleaseByName(n); !ok {
				t.Errorf("VER-1 row 1.%d names unknown release %q", row.minor, n)
			}
		}
	}
	if !IsSupportedWindowsBuild(27, 20348) || IsSupportedWindowsBuild(17, 20348) || !IsSupportedWindowsBuild(17, 17763) {
		t.Error("IsSupportedWindowsBuild is wrong")
	}
}

// TestFeatureVersions checks each feature against the release that the
// sources outside this package name, at the boundary: unavailable one
// minor release before, available from it on.
func TestFeatureVersions(t *testing.T) {
	// rule: VER-2, KLT-3, KLT-10, KP-2
	sources := []struct {
		name   string
		since  int
		source string
	}{
		// Seed 000 (Windows in Kubernetes, intro and feature list).
		{FeatureWindowsProduction, 14, "seed 000: production support from v1.14"},
		{FeatureGMSA, 14, "seed 000: GMSA from v1.14"},
		{FeatureRunAsUserName, 16, "seed 000: runAsUserName from v1.16"},
		{FeatureWindowsBuildLabel, 17, "seed 000: node.kubernetes.io/windows-build from v1.17"},
		{FeatureContainerdStable, 20, "seed 000: containerd stable from v1.20"},
		// Seed 000: kube-proxy options and their releases.
		{FeatureKubeProxyDSR, 15, "seed 000: DSR from v1.15"},
		{FeatureKubeProxyPreserveDest, 15, "seed 000: preserve-destination from v1.15"},
		{FeatureKubeProxyAffinity, 19, "seed 000: session affinity from v1.19"},
		{FeatureHostProcess, 26, "seed 002: HostProcess containers, GA in v1.26"},
		// Upstream release notes, not in the seeds.
		{FeatureMemoryEviction, 31, "Windows memory-pressure eviction in v1.31 (kubernetes#122922)"},
		{FeatureDockershimRemoved, 24, "dockershim removed in v1.24 (KEP-2221)"},
		{FeatureWinDSRGA, 34, "WinDSR feature gate GA in v1.34"},
		{FeatureWinOverlayGA, 34, "WinOverlay feature gate GA in v1.34"},
	}
	for _, s := range sources {
		if !FeatureAvailable(s.name, s.since) || FeatureAvailable(s.name, s.since-1) {
			t.Errorf("%s: want available from 1.%d, not before (%s)", s.name, s.since, s.source)
		}
	}
	if _, ok := FeatureSince("Teleport"); ok {
		t.Error("unknown feature found")
	}
	if !DockershimAvailable(23) || DockershimAvailable(24) {
		t.Error("DockershimAvailable: want dockershim through 1.23 only")
	}
}

// TestPauseImages checks the recommended pause images against the seeds.
func TestPauseImages(t *testing.T) {
	// rule: IMG-5
	// Seed 002: for v1.27 the recommended image is registry.k8s.io/pause:3.6,
	// and Microsoft signs the same image as mcr.microsoft.com/oss/kubernetes/pause:3.6.
	if got := RecommendedPauseImage(27); got != "registry.k8s.io/pause:3.6" {
		t.Errorf("RecommendedPauseImage(27) = %q, want registry.k8s.io/pause:3.6 (seed 002)", got)
	}
	if got := PauseImages(27); !slices.Contains(got, "mcr.microsoft.com/oss/kubernetes/pause:3.6") {
		t.Errorf("PauseImages(27) = %v, want the MCR image of seed 002 among them", got)
	}
	// Seed 000: Microsoft's mcr.microsoft.com/oss/kubernetes/pause:1.4.1,
	// needed from v1.15 on; seed 004: mcr.microsoft.com/k8s/core/pause:1.2.0
	// before it. Each is recommended for some release, 1.4.1 never before 1.15.
	const seed000, seed004 = "mcr.microsoft.com/oss/kubernetes/pause:1.4.1", "mcr.microsoft.com/k8s/core/pause:1.2.0"
	found := map[string]bool{}
	for minor := 10; minor <= 36; minor++ {
		for _, img := range PauseImages(minor) {
			found[img] = true
			if img == seed000 && minor < 15 {
				t.Errorf("PauseImages(%d) lists %s, which seed 000 ties to 1.15 and later", minor, seed000)
			}
		}
		if got := PauseImages(minor); len(got) > 0 && RecommendedPauseImage(minor) != got[0] {
			t.Errorf("RecommendedPauseImage(%d) = %q, want the first of %v", minor, RecommendedPauseImage(minor), got)
		}
	}
	for _, img := range []string{seed000, seed004} {
		if !found[img] {
			t.Errorf("no release recommends %s (seeds 000, 004)", img)
		}
	}
	// The kubelet's and containerd's own defaults (not in the seeds).
	for minor, want := range map[int]string{20: "", 26: "registry.k8s.io/pause:3.9", 31: "registry.k8s.io/pause:3.10", 35: "registry.k8s.io/pause:3.10.1"} {
		if got := DefaultPauseImage(minor); got != want {
			t.Errorf("DefaultPauseImage(%d) = %q, want %q", minor, got, want)
		}
	}
}

func TestSupportsSeedMatrix(t *testing.T) {
	// rule: KP-5
	// The "minimum supported Windows OS build" column of the Windows
	// service configuration table in the upstream networking page (seed
	// 001), by release name, and the release just before it.
	matrix := []struct {
		f           Feature
		min, tooOld string
	}{
		{SessionAffinity, "2022", "20H2"},
		{DSR, "2019", "2016"},
		{PreserveDestination, "1903", "1809"},
		{DualStack, "2019", "2016"},
		{ClientIPPreservation, "2019", "2016"},
	}
	for _, m := range matrix {
		min, ok1 := ReleaseByName(m.min)
		old, ok2 := ReleaseByName(m.tooOld)
		if !ok1 || !ok2 {
			t.Fatalf("unknown release %q or %q", m.min, m.tooOld)
		}
		if !Supports(m.f, min.Version()) {
			t.Errorf("%s should work on Windows Server %s", m.f, m.min)
		}
		if Supports(m.f, old.Version()) {
			t.Errorf("%s should not work on Windows Server %s", m.f, m.tooOld)
		}
	}
}

func TestSupports(t *testing.T) {
	// rule: KP-5
	tests := []struct {
		f    Feature
		b    Build
		want bool
	}{
		{SessionAffinity, b(20348, 1), true},
		{SessionAffinity, b(26100, 1), true},
		{SessionAffinity, b(17763, 5329), false},
		{SessionAffinity, b(19551, 0), false}, // seed 000's insider build predates the seed 001 rule
		{DSR, b(17763, 0), true},
		{DSR, b(14393, 0), false},
		{PreserveDestination, b(18362, 0), true},
		{PreserveDestination, b(17763, 5329), false},
		{PreserveDestination, b(20348, 0), true},
		{DualStack, b(17763, 0), true},
		{DualStack, b(14393, 0), false},
		{ClientIPPreservation, b(17763, 0), true},
		{ClientIPPreservation, b(14393, 0), false},
		{DSR, Build{6, 3, 17763, 0}, false},
		{Feature("Teleport"), b(26100, 0), false},
	}
	for _, tt := range tests {
		if got := Supports(tt.f, tt.b); got != tt.want {
			t.Errorf("Supports(%s, %s) = %v, want %v", tt.f, tt.b, got, tt.want)
		}
	}
	for _, f := range []Feature{SessionAffinity, DSR, PreserveDestination, DualStack, ClientIPPreservation} {
		if _, ok := MinBuild(f); !ok {
			t.Errorf("feature %s has no minimum build", f)
		}
	}
}

func TestFeatureFieldViolations(t *testing.T) {
	// rule: VER-2
	user, spec := "ContainerUser", "{}"
	withOptions := func(o corev1.WindowsSecurityContextOptions) *corev1.PodSpec {
		return &corev1.PodSpec{Containers: []corev1.Container{{Name: "app", SecurityContext: &corev1.SecurityContext{WindowsOptions: &o}}}}
	}
	tests := []struct {
		name  string
		spec  *corev1.PodSpec
		minor int
		want  []hit
	}{
		{"nil spec", nil, 10, nil},
		{"runAsUserName on 1.15", withOptions(corev1.WindowsSecurityContextOptions{RunAsUserName: &user}), 15,
			[]hit{{"VER-2", "spec.containers[0].securityContext.windowsOptions.runAsUserName"}}},
		{"runAsUserName on 1.16", withOptions(corev1.WindowsSecurityContextOptions{RunAsUserName: &user}), 16, nil},
		{"gMSA on 1.13", withOptions(corev1.WindowsSecurityContextOptions{GMSACredentialSpec: &spec}), 13,
			[]hit{{"VER-2", "spec.containers[0].securityContext.windowsOptions.gmsaCredentialSpec"}}},
		{"hostProcess on 1.25", &corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{
			WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr(true)}}}, 25,
			[]hit{{"VER-2", "spec.securityContext.windowsOptions.hostProcess"}}},
		{"hostProcess on 1.21", &corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{
			WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr(true)}}}, 21,
			[]hit{{"VER-2", "spec.securityContext.windowsOptions.hostProcess"}}},
		{"hostProcess on 1.26", &corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{
			WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr(true)}}}, 26, nil},
		{"hostProcess false on 1.20", withOptions(corev1.WindowsSecurityContextOptions{HostProcess: ptr(false)}), 20, nil},
	}
	for _, tt := range tests {
		got := hits(FeatureFieldViolations(tt.spec, field.NewPath("spec"), tt.minor))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
	// Beta and on by default in 1.23 to 1.25: advice, not a warning.
	beta := FeatureFieldViolations(&corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{
		WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr(true)}}}, field.NewPath("spec"), 24)
	if len(beta) != 1 || beta[0].Severity != SeverityInfo {
		t.Errorf("hostProcess on 1.24: %v", beta)
	}
}
