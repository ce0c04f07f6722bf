package windows

import "fmt"

// stableABIFloor is the first build with the stable container ABI: from
// Windows Server 2022 on, a host may run images older than itself.
const stableABIFloor = Build2022

// CheckImageCompatible implements rule IMG-2: it returns nil when an image
// built for `image` runs process-isolated on a host of build `host`, and an
// error saying why not otherwise.
//
//   - Major and minor must match.
//   - Hosts older than 2022 (20348) run only images of exactly their build.
//   - Hosts of 2022 or newer run images from the newest stable-ABI LTSC
//     release strictly older than the host (20348 when there is none) up to
//     the host's own build. So 2022 runs only 2022, 23H2 runs 2022..23H2 and
//     2025 runs 2022 and 2025.
//
// The revision (UBR) never matters.
func CheckImageCompatible(host, image Build) error {
	if imageRuns(host, image) {
		return nil
	}
	if host.Major != image.Major || host.Minor != image.Minor {
		return fmt.Errorf("image OS version %s does not match host OS version %s: major and minor versions must be equal",
			image.Label(), host.Label())
	}
	lo, hi := compatibleImageBuilds(host.Build)
	if lo == hi {
		return fmt.Errorf("image OS build %s cannot run process-isolated on host build %s: %s hosts run only images of the same build",
			image.Label(), host.Label(), BuildName(host.Build))
	}
	return fmt.Errorf("image OS build %s cannot run process-isolated on host build %s: %s hosts run images of builds %d to %d",
		image.Label(), host.Label(), BuildName(host.Build), lo, hi)
}

// imageRuns is CheckImageCompatible's answer without the reason, for the
// hot paths (admission checks every image on every kind of node) that only
// need yes or no.
func imageRuns(host, image Build) bool {
	if host.Major != image.Major || host.Minor != image.Minor {
		return false
	}
	lo, hi := compatibleImageBuilds(host.Build)
	return image.Build >= lo && image.Build <= hi
}

// compatibleImageBuilds returns the inclusive range of image builds a host of
// build `host` runs with process isolation (IMG-2).
func compatibleImageBuilds(host int) (lo, hi int) {
	if host < stableABIFloor {
		return host, host
	}
	return newestStableLTSCBefore(host), host
}

// newestStableLTSCBefore is the newest LTSC build with the stable ABI that is
// strictly older than host, or 20348 when none is.
func newestStableLTSCBefore(host int) int {
	floor := stableABIFloor
	for _, r := range releases {
		if r.LTSC && r.Build >= stableABIFloor && r.Build < host && r.Build > floor {
			floor = r.Build
		}
	}
	return floor
}

// BuildName renders a build as "Windows Server 2019 (17763)" when known.
func BuildName(build int) string {
	if r, ok := ReleaseByBuild(build); ok {
		return fmt.Sprintf("Windows Server %s (%d)", r.Name(), build)
	}
	return fmt.Sprintf("build %d", build)
}
