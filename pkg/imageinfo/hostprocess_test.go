package imageinfo

import (
	"errors"
	"testing"

	"github.com/winkube/winkube/pkg/windows"
)

// HostProcess images carry no os.version, so every Windows build runs them,
// and Linux nodes cannot pull them.
// rule: IMG-2, IMG-4
func TestHostProcessImagesRunOnAnyBuild(t *testing.T) {
	for _, ref := range []string{
		"sigwindowstools/kube-proxy:v1.36.3-flannel-hostprocess",
		"docker.io/sigwindowstools/flannel:v0.26.7-hostprocess",
		"mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0",
		"ghcr.io/prometheus-community/windows-exporter:0.31.8",
	} {
		img := Lookup(ref)
		if !img.Known {
			t.Errorf("%s is not in the catalog", ref)
		}
		for _, build := range []string{"10.0.17763.5329", "10.0.20348.2227", "10.0.26100.1"} {
			b, err := windows.ParseBuild(build)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := MatchHost(img, "windows", "amd64", b); err != nil {
				t.Errorf("%s on %s: %v", ref, build, err)
			}
		}
		if _, err := MatchHost(img, "linux", "amd64", windows.Build{}); !errors.Is(err, ErrNoMatchingPlatform) {
			t.Errorf("%s on linux: err = %v, want no matching platform", ref, err)
		}
	}
}
