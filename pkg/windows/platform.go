package windows

import (
	"sort"
	"strings"
)

// Platform is one entry of an OCI image index (manifests[].platform,
// IMG-3). OSVersion is empty when the entry does not pin a Windows build.
type Platform struct {
	OS           string
	Architecture string
	OSVersion    string
	OSFeatures   []string
}

// String renders "windows/amd64:10.0.17763.5329" or "linux/arm64".
func (p Platform) String() string {
	s := p.OS + "/" + p.Architecture
	if p.OSVersion != "" {
		s += ":" + p.OSVersion
	}
	return s
}

// ImagePlatforms is what an image offers, as ImageOnHost reads it.
type ImagePlatforms struct {
	// Ref is the normalised reference, for messages.
	Ref string
	// Index is true for an image index (manifest list), false for a
	// single-platform image: runtimes match an index's entries at pull
	// time and a single image not at all, so the two fail at different
	// stages (IMG-4).
	Index bool
	// Sandbox is true when the image is the pod sandbox (pause) image:
	// any failure then keeps the sandbox from starting (IMG-5).
	Sandbox bool
	// Platforms are the entries the image offers.
	Platforms []Platform
}

// entriesFor keeps the entries for one OS and architecture. An entry
// with no architecture counts as amd64, the default of old manifests.
func entriesFor(ps []Platform, os, arch string) []Platform {
	var out []Platform
	for _, p := range ps {
		if NormaliseOS(p.OS) == os && NormaliseArch(p.Architecture) == arch {
			out = append(out, p)
		}
	}
	return out
}

// entryRuns applies IMG-2 to one Windows entry. An entry without
// os.version matches any build; one whose os.version cannot be parsed is
// not trusted to run.
func entryRuns(p Platform, host Build) bool {
	if NormaliseOS(p.OS) != "windows" || host.IsZero() || p.OSVersion == "" {
		return true
	}
	b, err := ParseBuild(p.OSVersion)
	if err != nil {
		return false
	}
	return imageRuns(host, b)
}

// pullable keeps the Windows index entries a runtime pulls on host
// (IMG-4): containerd's platform matcher keeps those the build runs
// (IMG-2), Docker (moby's pull_v2_windows.go) drops only entries newer
// than the host, so an older one is pulled and fails at start.
func pullable(ps []Platform, runtime string, host Build) []Platform {
	var out []Platform
	for _, p := range ps {
		switch {
		case p.OSVersion == "":
			out = append(out, p)
		case IsDocker(runtime) && entryVersion(p).Build <= host.Build:
			out = append(out, p)
		case !IsDocker(runtime) && entryRuns(p, host):
			out = append(out, p)
		}
	}
	return out
}

// bestEntry returns the entry with the highest os.version; version-less
// entries rank lowest. Ties keep index order, like the runtime's stable
// sort.
func bestEntry(ps []Platform) Platform {
	sorted := append([]Platform(nil), ps...)
	sort.SliceStable(sorted, func(i, j int) bool {
		return entryVersion(sorted[i]).Compare(entryVersion(sorted[j])) > 0
	})
	return sorted[0]
}

// entryVersion parses an entry's os.version; empty or bad values are the
// zero build, which sorts below every real one.
func entryVersion(p Platform) Build {
	b, err := ParseBuild(p.OSVersion)
	if err != nil {
		return Build{}
	}
	return b
}

// NormaliseOS lower-cases and trims an OS name.
func NormaliseOS(os string) string {
	return strings.ToLower(strings.TrimSpace(os))
}

// NormaliseArch folds the kernel's architecture names into Go's, which
// OCI uses; empty means amd64.
func NormaliseArch(arch string) string {
	switch a := strings.ToLower(strings.TrimSpace(arch)); a {
	case "", "x86_64", "x86-64":
		return "amd64"
	case "aarch64":
		return "arm64"
	default:
		return a
	}
}

// DescribePlatforms names the OS/architecture pairs of entries:
// "linux/amd64, windows/amd64".
func DescribePlatforms(ps []Platform) string {
	if len(ps) == 0 {
		return "no platforms"
	}
	seen := map[string]bool{}
	var names []string
	for _, p := range ps {
		n := NormaliseOS(p.OS) + "/" + NormaliseArch(p.Architecture)
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// describeBuilds lists the builds entries pin, "10.0.17763, 10.0.20348".
func describeBuilds(ps []Platform) string {
	var labels []string
	seen := map[string]bool{}
	for _, p := range ps {
		l := entryVersion(p).Label()
		if !seen[l] {
			seen[l] = true
			labels = append(labels, l)
		}
	}
	return strings.Join(labels, ", ")
}
