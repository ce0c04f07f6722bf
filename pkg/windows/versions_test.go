package windows

import (
	"reflect"
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

func TestFeatureVersions(t *testing.T) {
	// rule: VER-2, KLT-3, KLT-10, KP-2
	tests := []struct {
		name  string
		since int
	}{
		{FeatureWindowsProduction, 14},
		{FeatureGMSA, 14},
		{FeatureRunAsUserName, 16},
		{FeatureWindowsBuildLabel, 17},
		{FeatureContainerdStable, 20},
		{FeatureKubeProxyDSR, 15},
		{FeatureKubeProxyPreserveDest, 15},
		{FeatureKubeProxyAffinity, 19},
		{FeatureHostProcess, 26},
		{FeatureMemoryEviction, 31},
		{FeatureDockershimRemoved, 24},
		{FeatureWinDSRGA, 34},
		{FeatureWinOverlayGA, 34},
	}
	for _, tt := range tests {
		if got, ok := FeatureSince(tt.name); !ok || got != tt.since {
			t.Errorf("FeatureSince(%s) = %d, %v, want %d", tt.name, got, ok, tt.since)
		}
	}
	if _, ok := FeatureSince("Teleport"); ok {
		t.Error("unknown feature found")
	}
	if !DockershimAvailable(23) || DockershimAvailable(24) {
		t.Error("DockershimAvailable is wrong")
	}
	if FeatureAvailable(FeatureMemoryEviction, 30) || !FeatureAvailable(FeatureMemoryEviction, 31) {
		t.Error("memory-pressure eviction on Windows should start with 1.31")
	}
}

func TestPauseImages(t *testing.T) {
	// rule: IMG-5
	tests := []struct {
		minor int
		want  []string
	}{
		{14, []string{"mcr.microsoft.com/k8s/core/pause:1.2.0"}},
		{17, []string{"mcr.microsoft.com/oss/kubernetes/pause:1.4.1"}},
		{20, []string{"mcr.microsoft.com/oss/kubernetes/pause:1.4.1"}},
		{21, []string{"registry.k8s.io/pause:3.4.1", "mcr.microsoft.com/oss/kubernetes/pause:1.4.1"}},
		{23, []string{"registry.k8s.io/pause:3.6", "mcr.microsoft.com/oss/kubernetes/pause:3.6"}},
		{27, []string{"registry.k8s.io/pause:3.6", "mcr.microsoft.com/oss/kubernetes/pause:3.6", "registry.k8s.io/pause:3.9"}},
		{36, []string{"registry.k8s.io/pause:3.6", "mcr.microsoft.com/oss/kubernetes/pause:3.6", "registry.k8s.io/pause:3.10.2"}},
	}
	for _, tt := range tests {
		if got := PauseImages(tt.minor); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("PauseImages(%d) = %v, want %v", tt.minor, got, tt.want)
		}
		if got := RecommendedPauseImage(tt.minor); got != tt.want[0] {
			t.Errorf("RecommendedPauseImage(%d) = %q", tt.minor, got)
		}
	}
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
		if _, ok := minBuild(f); !ok {
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
