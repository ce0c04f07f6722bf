package imageinfo

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/windows"
)

func TestLookupNormalises(t *testing.T) {
	// rule: IMG-3
	tests := []struct {
		ref            string
		repo, tag, dig string
		known          bool
	}{
		{"nginx", "docker.io/library/nginx", "latest", "", true},
		{"nginx:1.25", "docker.io/library/nginx", "1.25", "", true},
		{"library/nginx:1.25", "docker.io/library/nginx", "1.25", "", true},
		{"docker.io/nginx", "docker.io/library/nginx", "latest", "", true},
		{"docker.io/library/nginx:alpine", "docker.io/library/nginx", "alpine", "", true},
		{"index.docker.io/library/busybox", "docker.io/library/busybox", "latest", "", true},
		{"nginx@sha256:abcd", "docker.io/library/nginx", "", "sha256:abcd", true},
		{"nginx:1.25@sha256:abcd", "docker.io/library/nginx", "1.25", "sha256:abcd", true},
		{"k8s.gcr.io/pause:3.6", "registry.k8s.io/pause", "3.6", "", true},
		{"localhost:5000/app", "localhost:5000/app", "latest", "", false},
		{"localhost:5000/app:v1", "localhost:5000/app", "v1", "", false},
		{"myorg/app:v1", "docker.io/myorg/app", "v1", "", false},
		{"MCR.microsoft.com/windows/servercore:ltsc2019", "mcr.microsoft.com/windows/servercore", "ltsc2019", "", true},
		{"", "docker.io/library/", "latest", "", false},
	}
	for _, tt := range tests {
		img := Lookup(tt.ref)
		if img.Repository != tt.repo || img.Tag != tt.tag || img.Digest != tt.dig || img.Known != tt.known {
			t.Errorf("Lookup(%q) = %s %q %q known=%v, want %s %q %q known=%v",
				tt.ref, img.Repository, img.Tag, img.Digest, img.Known, tt.repo, tt.tag, tt.dig, tt.known)
		}
	}
}

func TestLookupUnknownIsLinux(t *testing.T) {
	// rule: IMG-3, SCH-5 (unknown images are treated as Linux)
	img := Lookup("example.com/team/app:1.0")
	if img.Known {
		t.Fatal("unknown image reported as known")
	}
	want := []Platform{{OS: "linux", Architecture: "amd64"}}
	if !reflect.DeepEqual(img.Platforms, want) {
		t.Errorf("platforms = %v, want %v", img.Platforms, want)
	}
}

func builds(img Image) []string {
	var out []string
	for _, b := range img.WindowsBuilds() {
		out = append(out, b.Label())
	}
	return out
}

func TestLookupWindowsTags(t *testing.T) {
	// rule: IMG-1, IMG-3
	tests := []struct {
		ref    string
		known  bool
		oses   []string
		builds []string
	}{
		{"mcr.microsoft.com/windows/servercore:ltsc2019", true, []string{"windows"}, []string{"10.0.17763"}},
		{"mcr.microsoft.com/windows/servercore:ltsc2016", true, []string{"windows"}, []string{"10.0.14393"}},
		{"mcr.microsoft.com/windows/servercore:1809", true, []string{"windows"}, []string{"10.0.17763"}},
		{"mcr.microsoft.com/windows/servercore:20H2", true, []string{"windows"}, []string{"10.0.19042"}},
		{"mcr.microsoft.com/windows/servercore:2004", true, []string{"windows"}, []string{"10.0.19041"}},
		{"mcr.microsoft.com/windows/servercore:ltsc2022", true, []string{"windows"}, []string{"10.0.20348"}},
		{"mcr.microsoft.com/windows/servercore:ltsc2025", true, []string{"windows"}, []string{"10.0.26100"}},
		{"mcr.microsoft.com/windows/servercore:10.0.17763.4377", true, []string{"windows"}, []string{"10.0.17763"}},
		{"mcr.microsoft.com/windows/servercore:ltsc2019-amd64", true, []string{"windows"}, []string{"10.0.17763"}},
		{"mcr.microsoft.com/windows/nanoserver:1809", true, []string{"windows"}, []string{"10.0.17763"}},
		{"mcr.microsoft.com/windows/nanoserver:ltsc2022", true, []string{"windows"}, []string{"10.0.20348"}},
		{"mcr.microsoft.com/windows/server:ltsc2022", true, []string{"windows"}, []string{"10.0.20348"}},
		{"mcr.microsoft.com/windows:1809", true, []string{"windows"}, []string{"10.0.17763"}},
		{"mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019", true, []string{"windows"}, []string{"10.0.17763"}},
		{"mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022", true, []string{"windows"}, []string{"10.0.20348"}},
		{"mcr.microsoft.com/windows/servercore/iis", true, []string{"windows"}, []string{"10.0.17763", "10.0.20348", "10.0.26100"}},
		{"mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2019", true, []string{"windows"}, []string{"10.0.17763"}},
		{"mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2022", true, []string{"windows"}, []string{"10.0.20348"}},
		{"mcr.microsoft.com/dotnet/framework/aspnet:4.8.1-20240109-windowsservercore-ltsc2022", true, []string{"windows"}, []string{"10.0.20348"}},
		{"mcr.microsoft.com/dotnet/framework/aspnet:4.8", true, []string{"windows"}, []string{"10.0.14393", "10.0.17763", "10.0.20348", "10.0.26100"}},
		{"mcr.microsoft.com/dotnet/framework/samples:aspnetapp", true, []string{"windows"}, []string{"10.0.17763", "10.0.20348", "10.0.26100"}},
		{"mcr.microsoft.com/powershell:lts-nanoserver-1809", true, []string{"windows"}, []string{"10.0.17763"}},
		{"mcr.microsoft.com/powershell:nanoserver-ltsc2022", true, []string{"windows"}, []string{"10.0.20348"}},
		{"mcr.microsoft.com/powershell:7.4-ubuntu-22.04", true, []string{"linux"}, nil},
		{"mcr.microsoft.com/powershell", true, []string{"linux", "windows"}, []string{"10.0.17763", "10.0.20348"}},
		// A Windows repository with a tag naming no release: Windows, build unknown.
		{"mcr.microsoft.com/windows/servercore:latest", false, []string{"windows"}, nil},
		{"mcr.microsoft.com/windows/servercore@sha256:0123", false, []string{"windows"}, nil},
	}
	for _, tt := range tests {
		img := Lookup(tt.ref)
		if img.Known != tt.known || !reflect.DeepEqual(img.OSes(), tt.oses) || !reflect.DeepEqual(builds(img), tt.builds) {
			t.Errorf("Lookup(%q): known=%v oses=%v builds=%v, want known=%v oses=%v builds=%v",
				tt.ref, img.Known, img.OSes(), builds(img), tt.known, tt.oses, tt.builds)
		}
	}
}

func TestLookupWindowsTagUsesReleaseUBR(t *testing.T) {
	// rule: IMG-3, KLT-1 (a release tag carries a full os.version)
	img := Lookup("mcr.microsoft.com/windows/servercore:ltsc2019")
	if got := img.Platforms[0].OSVersion; got != "10.0.17763.5329" {
		t.Errorf("os.version = %q, want 10.0.17763.5329", got)
	}
}

func TestLookupPauseImages(t *testing.T) {
	// rule: IMG-5 (Windows builds per pause tag, build/pause/CHANGELOG.md)
	tests := []struct {
		ref    string
		builds []string
	}{
		{"registry.k8s.io/pause:3.4.1", []string{"10.0.17763", "10.0.18362", "10.0.18363", "10.0.19041", "10.0.19042"}},
		{"registry.k8s.io/pause:3.6", []string{"10.0.17763", "10.0.18362", "10.0.18363", "10.0.19041", "10.0.19042", "10.0.20348"}},
		{"registry.k8s.io/pause:3.7", []string{"10.0.17763", "10.0.19042", "10.0.20348"}},
		{"registry.k8s.io/pause:3.8", []string{"10.0.17763", "10.0.19042", "10.0.20348"}},
		{"registry.k8s.io/pause:3.9", []string{"10.0.17763", "10.0.20348"}},
		{"registry.k8s.io/pause:3.10", []string{"10.0.17763", "10.0.20348"}},
		{"registry.k8s.io/pause:3.10.1", []string{"10.0.17763", "10.0.20348"}},
		{"registry.k8s.io/pause:3.10.2", []string{"10.0.17763", "10.0.20348", "10.0.26100"}},
		{"registry.k8s.io/pause:3.2", nil},
		{"k8s.gcr.io/pause:3.6", []string{"10.0.17763", "10.0.18362", "10.0.18363", "10.0.19041", "10.0.19042", "10.0.20348"}},
		{"mcr.microsoft.com/oss/kubernetes/pause:3.6", []string{"10.0.17763", "10.0.19041", "10.0.19042", "10.0.20348"}},
		{"mcr.microsoft.com/oss/kubernetes/pause:1.4.1", []string{"10.0.17763", "10.0.18362", "10.0.18363", "10.0.19041"}},
		{"mcr.microsoft.com/k8s/core/pause:1.2.0", []string{"10.0.17134", "10.0.17763"}},
		{"registry.k8s.io/e2e-test-images/agnhost:2.63.0", []string{"10.0.17763", "10.0.20348"}},
	}
	for _, tt := range tests {
		img := Lookup(tt.ref)
		if !img.Known || !reflect.DeepEqual(builds(img), tt.builds) {
			t.Errorf("Lookup(%q): known=%v builds=%v, want %v", tt.ref, img.Known, builds(img), tt.builds)
		}
	}
	if !Lookup("registry.k8s.io/pause:3.9").HasOS("linux") {
		t.Error("pause:3.9 lacks linux")
	}
}

func TestLookupLinuxImages(t *testing.T) {
	// rule: SCH-5, IMG-3
	for _, ref := range []string{"nginx", "busybox:1.36", "alpine:3.19", "ubuntu:22.04", "debian", "redis:7", "postgres:16"} {
		img := Lookup(ref)
		if !img.Known || !reflect.DeepEqual(img.OSes(), []string{"linux"}) || len(img.WindowsBuilds()) != 0 {
			t.Errorf("Lookup(%q) = known=%v oses=%v, want a known linux-only image", ref, img.Known, img.OSes())
		}
	}
}

func TestLookupReturnsCopies(t *testing.T) {
	// rule: IMG-3 (callers cannot edit the catalog)
	img := Lookup("registry.k8s.io/pause:3.9")
	img.Platforms[0].OS = "plan9"
	if Lookup("registry.k8s.io/pause:3.9").Platforms[0].OS != "linux" {
		t.Fatal("Lookup leaked the catalog")
	}
}

func win(v string) Platform { return Platform{OS: "windows", Architecture: "amd64", OSVersion: v} }

func host(s string) windows.Build {
	b, err := windows.ParseBuild(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestMatchHost(t *testing.T) {
	// rule: IMG-2, IMG-3, IMG-4
	multi := Image{Repository: "example/multi", Tag: "1", Known: true, Index: true, Platforms: []Platform{
		{OS: "linux", Architecture: "amd64"},
		{OS: "linux", Architecture: "arm64", OSFeatures: nil},
		win("10.0.17763.5329"),
		win("10.0.17763.6000"),
		win("10.0.17763.100"),
		win("10.0.20348.2227"),
		win("10.0.26100.2314"),
	}}
	versionless := Image{Repository: "example/any", Tag: "1", Platforms: []Platform{
		{OS: "windows", Architecture: "amd64"},
	}}
	mixedVersionless := Image{Repository: "example/mix", Tag: "1", Platforms: []Platform{
		{OS: "windows", Architecture: "amd64"},
		win("10.0.17763.1"),
	}}
	tests := []struct {
		name    string
		img     Image
		os      string
		arch    string
		host    windows.Build
		want    string
		wantErr error
	}{
		{"linux amd64, host build ignored", multi, "linux", "amd64", host("10.0.20348"), "linux/amd64", nil},
		{"linux arm64 via aarch64", multi, "linux", "aarch64", windows.Build{}, "linux/arm64", nil},
		{"highest revision wins on 2019", multi, "windows", "amd64", host("10.0.17763.1"), "windows/amd64:10.0.17763.6000", nil},
		{"2022 host takes only 2022", multi, "windows", "amd64", host("10.0.20348.100"), "windows/amd64:10.0.20348.2227", nil},
		{"2025 host prefers 2025 over 2022", multi, "windows", "amd64", host("10.0.26100.1"), "windows/amd64:10.0.26100.2314", nil},
		{"23H2 host runs the 2022 entry", multi, "windows", "amd64", host("10.0.25398.643"), "windows/amd64:10.0.20348.2227", nil},
		{"x86_64 is amd64", multi, "Windows", "x86_64", host("10.0.17763"), "windows/amd64:10.0.17763.6000", nil},
		{"unknown host build takes the highest", multi, "windows", "amd64", windows.Build{}, "windows/amd64:10.0.26100.2314", nil},
		{"20H2 host: wrong build", multi, "windows", "amd64", host("10.0.19042.1889"), "", ErrOSVersionMismatch},
		{"2016 host: wrong build", multi, "windows", "amd64", host("10.0.14393"), "", ErrOSVersionMismatch},
		{"windows arm64: no platform", multi, "windows", "arm64", host("10.0.17763"), "", ErrNoMatchingPlatform},
		{"linux image on windows", Lookup("nginx"), "windows", "amd64", host("10.0.17763"), "", ErrNoMatchingPlatform},
		{"windows image on linux", Lookup("mcr.microsoft.com/windows/servercore:ltsc2019"), "linux", "amd64", windows.Build{}, "", ErrNoMatchingPlatform},
		{"ltsc2019 image on 2022", Lookup("mcr.microsoft.com/windows/servercore:ltsc2019"), "windows", "amd64", host("10.0.20348.2227"), "", ErrOSVersionMismatch},
		{"ltsc2022 image on 2025", Lookup("mcr.microsoft.com/windows/servercore:ltsc2022"), "windows", "amd64", host("10.0.26100.2314"), "windows/amd64:10.0.20348.2227", nil},
		{"os.version-less entry matches any build", versionless, "windows", "amd64", host("10.0.19042"), "windows/amd64", nil},
		{"pinned entry beats version-less", mixedVersionless, "windows", "amd64", host("10.0.17763"), "windows/amd64:10.0.17763.1", nil},
		{"version-less used when pinned does not fit", mixedVersionless, "windows", "amd64", host("10.0.20348"), "windows/amd64", nil},
		{"pause 3.9 on 20H2", Lookup("registry.k8s.io/pause:3.9"), "windows", "amd64", host("10.0.19042.1889"), "", ErrOSVersionMismatch},
		{"pause 3.6 on 20H2", Lookup("registry.k8s.io/pause:3.6"), "windows", "amd64", host("10.0.19042.1889"), "windows/amd64:10.0.19042.1889", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MatchHost(tt.img, tt.os, tt.arch, tt.host)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("MatchHost = %v, %v; want error %v", got, err, tt.wantErr)
				}
				if tt.wantErr == ErrNoMatchingPlatform && !strings.HasPrefix(err.Error(), tt.wantErr.Error()) {
					t.Errorf("error %q does not start with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("MatchHost: %v", err)
			}
			if got.String() != tt.want {
				t.Errorf("MatchHost = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestMatchHostErrorNamesImage(t *testing.T) {
	// rule: IMG-4: MCR publishes servercore:ltsc2019 as an index whose one
	// entry carries os.version, so containerd refuses it at pull
	// (containerd core/images/handlers.go LimitManifests).
	_, err := MatchHost(Lookup("mcr.microsoft.com/windows/servercore:ltsc2019"), "windows", "amd64", host("10.0.20348.2227"))
	for _, want := range []string{"mcr.microsoft.com/windows/servercore:ltsc2019", "10.0.17763", "10.0.20348", "no match for platform in manifest: not found", "ImagePullBackOff"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not mention %q", err, want)
		}
	}
	// A single-platform image is pulled and fails at start with HCS's words.
	_, err = MatchHost(Lookup("registry.example.com/windows/app:ltsc2022"), "windows", "amd64", host("10.0.17763.5329"))
	for _, want := range []string{"single-platform", "10.0.20348", "10.0.17763", "The container operating system does not match the host operating system.", "0xc0370101", "CrashLoopBackOff"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not mention %q", err, want)
		}
	}
	_, err = MatchHost(Lookup("nginx"), "windows", "amd64", host("10.0.17763"))
	if err == nil || !strings.Contains(err.Error(), "linux/amd64") {
		t.Errorf("error %v does not list the offered platforms", err)
	}
}

func TestLookupUnlistedPauseTag(t *testing.T) {
	// rule: IMG-5 (an unlisted pause tag is guessed from the newest one)
	img := Lookup("registry.k8s.io/pause:3.11")
	if img.Known || !img.HasOS("windows") || !img.HasOS("linux") {
		t.Errorf("pause:3.11 = known=%v oses=%v, want a multi-OS guess", img.Known, img.OSes())
	}
	if img := Lookup("registry.k8s.io/pause@sha256:0123"); img.Known || !img.HasOS("windows") {
		t.Errorf("pause@digest = known=%v oses=%v", img.Known, img.OSes())
	}
}

func TestReleaseFromTag(t *testing.T) {
	// rule: IMG-1, IMG-3
	tests := []struct {
		tag   string
		build int
		ok    bool
	}{
		{"ltsc2019", 17763, true},
		{"LTSC2022", 20348, true},
		{"1809", 17763, true},
		{"20H2", 19042, true},
		{"2004", 19041, true},
		{"windowsservercore-ltsc2019", 17763, true},
		{"4.8-windowsservercore-ltsc2022", 20348, true},
		{"nanoserver-1809", 17763, true},
		{"lts-nanoserver-ltsc2025", 26100, true},
		{"10.0.20348.2227", 20348, true},
		{"4.8.1-20240109-windowsservercore-ltsc2022", 20348, true},
		{"20040101", 0, false},
		{"latest", 0, false},
		{"1.25", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		r, ok := ReleaseFromTag(tt.tag)
		if ok != tt.ok || r.Build != tt.build {
			t.Errorf("ReleaseFromTag(%q) = %d, %v, want %d, %v", tt.tag, r.Build, ok, tt.build, tt.ok)
		}
	}
}

// Images the catalog must know beyond the MCR base images: the frozen
// Docker Hub repositories, retired semi-annual releases, the e2e test images
// and the nanoserver tags of PowerShell and .NET.
func TestLookupLegacyAndSemiAnnual(t *testing.T) {
	// rule: IMG-1, IMG-3
	tests := []struct {
		ref    string
		known  bool
		oses   []string
		builds []string
	}{
		{"microsoft/iis", true, []string{"windows"}, []string{"10.0.14393"}},
		{"microsoft/iis:windowsservercore-1709", true, []string{"windows"}, []string{"10.0.16299"}},
		{"microsoft/iis:nanoserver-sac2016", true, []string{"windows"}, []string{"10.0.14393"}},
		{"docker.io/microsoft/windowsservercore:1803", true, []string{"windows"}, []string{"10.0.17134"}},
		{"microsoft/windowsservercore:10.0.14393.2248", true, []string{"windows"}, []string{"10.0.14393"}},
		{"microsoft/nanoserver", true, []string{"windows"}, []string{"10.0.14393"}},
		{"microsoft/dotnet-framework:4.7.2-runtime-windowsservercore-1803", true, []string{"windows"}, []string{"10.0.17134"}},
		{"microsoft/aspnet:4.7.2", true, []string{"windows"}, []string{"10.0.14393"}},
		{"mcr.microsoft.com/windows/servercore:1709", true, []string{"windows"}, []string{"10.0.16299"}},
		{"mcr.microsoft.com/windows/nanoserver:1903", true, []string{"windows"}, []string{"10.0.18362"}},
		{"mcr.microsoft.com/windows/nanoserver:1909", true, []string{"windows"}, []string{"10.0.18363"}},
		{"mcr.microsoft.com/windows/servercore/iis:windowsservercore-20H2", true, []string{"windows"}, []string{"10.0.19042"}},
		{"registry.k8s.io/e2e-test-images/busybox:1.36.1-1", true, []string{"linux", "windows"}, []string{"10.0.17763", "10.0.20348"}},
		{"k8s.gcr.io/e2e-test-images/jessie-dnsutils:1.7", true, []string{"linux", "windows"}, []string{"10.0.17763", "10.0.20348"}},
		{"registry.k8s.io/e2e-test-images/httpd:2.4.39-4", true, []string{"linux", "windows"}, []string{"10.0.17763", "10.0.20348"}},
		{"mcr.microsoft.com/powershell:7.4-nanoserver-ltsc2022", true, []string{"windows"}, []string{"10.0.20348"}},
		{"mcr.microsoft.com/powershell:nanoserver", false, []string{"windows"}, nil},
		{"mcr.microsoft.com/dotnet/runtime:8.0-nanoserver-1809", true, []string{"windows"}, []string{"10.0.17763"}},
		{"mcr.microsoft.com/dotnet/aspnet:8.0-windowsservercore-ltsc2022", true, []string{"windows"}, []string{"10.0.20348"}},
		{"mcr.microsoft.com/dotnet/sdk:8.0-nanoserver-ltsc2025", true, []string{"windows"}, []string{"10.0.26100"}},
		{"mcr.microsoft.com/dotnet/sdk:8.0-bookworm-slim", true, []string{"linux"}, nil},
	}
	for _, tt := range tests {
		img := Lookup(tt.ref)
		if img.Known != tt.known || !img.Cataloged || !reflect.DeepEqual(img.OSes(), tt.oses) || !reflect.DeepEqual(builds(img), tt.builds) {
			t.Errorf("Lookup(%q): known=%v cataloged=%v oses=%v builds=%v, want known=%v oses=%v builds=%v",
				tt.ref, img.Known, img.Cataloged, img.OSes(), builds(img), tt.known, tt.oses, tt.builds)
		}
	}
	if img := Lookup("example.com/team/app:1.0"); img.Cataloged {
		t.Error("an image outside the catalog is reported as cataloged")
	}
}

// 1709 and 1803 images run on no current node: not on 2019 (exact build
// needed below 20348), not on 2022 or 2025 (range starts at 20348).
func TestRetiredReleasesRunNowhere(t *testing.T) {
	// rule: IMG-2
	for _, ref := range []string{"microsoft/windowsservercore:1709", "mcr.microsoft.com/windows/nanoserver:1803"} {
		img := Lookup(ref)
		for _, h := range []string{"10.0.14393.6614", "10.0.17763.5329", "10.0.20348.2227", "10.0.26100.2314"} {
			if _, err := MatchHost(img, "windows", "amd64", host(h)); !errors.Is(err, ErrOSVersionMismatch) {
				t.Errorf("%s on %s: err = %v, want a build mismatch", ref, h, err)
			}
		}
	}
	if _, ok := ReleaseFromTag("windowsservercore-1709"); !ok {
		t.Error("ReleaseFromTag does not know 1709")
	}
}
