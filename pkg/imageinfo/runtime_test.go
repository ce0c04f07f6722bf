package imageinfo

import (
	"errors"
	"testing"
)

// rule: IMG-4. containerd matches an index's Windows entries by build at
// pull (containerd/platforms platform_windows_compat.go, applied by
// containerd core/images/handlers.go LimitManifests); Docker filters only
// entries newer than the host (moby daemon/internal/distribution/
// pull_v2_windows.go filterManifests); a single manifest is never matched
// by build at pull (containerd core/images/image.go Manifest).
func TestPullPlatform(t *testing.T) {
	on2019, on2022 := host("10.0.17763.5329"), host("10.0.20348.2227")
	older := Image{Repository: "example/older", Tag: "1", Index: true, Platforms: []Platform{win("10.0.17763.5329")}}
	tests := []struct {
		name, image, runtime string
		want                 string // os/arch[:build]; "" = the pull fails
	}{
		{"containerd: 2022 index on 2019", "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022", RuntimeContainerd, ""},
		{"containerd: 2019 index on 2019", "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019", RuntimeContainerd, "windows/amd64:10.0.17763"},
		{"containerd: multi-build index picks 2019", "mcr.microsoft.com/dotnet/framework/aspnet:4.8", RuntimeContainerd, "windows/amd64:10.0.17763"},
		{"containerd: single 2022 image pulls on 2019", "registry.example.com/windows/app:ltsc2022", RuntimeContainerd, "windows/amd64:10.0.20348"},
		{"containerd: Linux image", "nginx:1.27", RuntimeContainerd, ""},
		{"containerd: HostProcess image without os.version", "docker.io/sigwindowstools/flannel:v0.26.1-hostprocess", RuntimeContainerd, "windows/amd64"},
		{"docker: 2022 index on 2019 is filtered", "mcr.microsoft.com/windows/servercore:ltsc2022", RuntimeDocker, ""},
		{"docker: Linux image", "nginx:1.27", RuntimeDocker, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img := Lookup(tt.image)
			got, err := PullPlatform(img, tt.runtime, "windows", "amd64", on2019)
			if tt.want == "" {
				if !errors.Is(err, ErrNoMatchingPlatform) {
					t.Fatalf("PullPlatform = %v, %v; want %v", got, err, ErrNoMatchingPlatform)
				}
				return
			}
			if err != nil {
				t.Fatalf("PullPlatform: %v", err)
			}
			if labelOf(got) != tt.want {
				t.Errorf("PullPlatform = %s, want %s", got, tt.want)
			}
		})
	}
	// Docker pulls an OLDER entry on a newer host; it then fails to start.
	p, err := PullPlatform(older, RuntimeDocker, "windows", "amd64", on2022)
	if err != nil || StartsOn(p, on2022) {
		t.Errorf("docker, 2019 entry on 2022: pulled %s, %v, starts %v; want pulled and not starting", p, err, StartsOn(p, on2022))
	}
	// containerd refuses the same index at pull.
	if _, err := PullPlatform(older, RuntimeContainerd, "windows", "amd64", on2022); !errors.Is(err, ErrNoMatchingPlatform) {
		t.Errorf("containerd, 2019 entry on 2022: %v, want %v", err, ErrNoMatchingPlatform)
	}
}

// rule: IMG-2, IMG-4: what was pulled must still match the build to start.
func TestStartsOn(t *testing.T) {
	tests := []struct {
		p    Platform
		host string
		want bool
	}{
		{win("10.0.20348.2227"), "10.0.17763.5329", false},
		{win("10.0.17763.1"), "10.0.17763.5329", true},
		{win("10.0.20348.2227"), "10.0.26100.1", true},
		{Platform{OS: "windows", Architecture: "amd64"}, "10.0.17763.1", true},
		{Platform{OS: "linux", Architecture: "amd64"}, "10.0.17763.1", true},
	}
	for _, tt := range tests {
		if got := StartsOn(tt.p, host(tt.host)); got != tt.want {
			t.Errorf("StartsOn(%s, %s) = %v, want %v", tt.p, tt.host, got, tt.want)
		}
	}
}

// labelOf renders os/arch and the build without its revision.
func labelOf(p Platform) string {
	if p.OSVersion == "" {
		return p.String()
	}
	return p.OS + "/" + p.Architecture + ":" + versionOf(p).Label()
}
