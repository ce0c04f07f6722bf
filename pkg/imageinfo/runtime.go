package imageinfo

import (
	"fmt"
	"strings"

	"github.com/winkube/winkube/pkg/windows"
)

// Container runtimes whose platform matchers PullPlatform follows (IMG-4).
const (
	RuntimeContainerd = "containerd"
	RuntimeDocker     = "docker"
)

// PullPlatform is the entry a runtime pulls for a host (IMG-4). Both
// runtimes need an entry for the host's OS and architecture. For an index,
// containerd keeps only the Windows entries the host build runs (IMG-2; an
// entry without os.version always matches), as containerd's platform
// matcher does, while Docker drops only entries newer than the host, as
// moby's distribution/pull_v2_windows.go does, so an older entry is pulled
// and fails at start. A single-platform image is never matched by build at
// pull. The error wraps ErrNoMatchingPlatform; StartsOn then decides the
// start.
func PullPlatform(img Image, runtime, os, arch string, host windows.Build) (Platform, error) {
	os, arch = normaliseOS(os), normaliseArch(arch)
	candidates := platformsFor(img.Platforms, os, arch)
	if img.Index && os == "windows" && !host.IsZero() {
		candidates = pullableOn(candidates, runtime, host)
	}
	if len(candidates) == 0 {
		want := os + "/" + arch
		if !host.IsZero() {
			want += " " + host.Label()
		}
		return Platform{}, fmt.Errorf("%w: %s offers %s, not %s",
			ErrNoMatchingPlatform, img.Ref(), describeOffer(img), want)
	}
	return best(candidates), nil
}

// pullableOn keeps the Windows index entries a runtime pulls on host.
func pullableOn(ps []Platform, runtime string, host windows.Build) []Platform {
	var out []Platform
	for _, p := range ps {
		switch {
		case p.OSVersion == "":
			out = append(out, p)
		case runtime == RuntimeDocker && versionOf(p).Build <= host.Build:
			out = append(out, p)
		case runtime != RuntimeDocker && windowsEntryRuns(p, host):
			out = append(out, p)
		}
	}
	return out
}

// StartsOn reports whether a pulled entry starts process-isolated on host
// (IMG-2); Linux entries and unknown host builds always start.
func StartsOn(p Platform, host windows.Build) bool {
	if normaliseOS(p.OS) != "windows" || host.IsZero() {
		return true
	}
	return windowsEntryRuns(p, host)
}

// describeOffer names an image's platforms and the Windows builds it pins.
func describeOffer(img Image) string {
	var labels []string
	for _, b := range img.WindowsBuilds() {
		labels = append(labels, b.Label())
	}
	if len(labels) == 0 {
		return describePlatforms(img.Platforms)
	}
	return describePlatforms(img.Platforms) + " (Windows " + strings.Join(labels, ", ") + ")"
}
