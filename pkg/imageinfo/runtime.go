package imageinfo

import "github.com/winkube/winkube/pkg/windows"

// Container runtimes whose platform matchers the rule book follows (IMG-4).
const (
	RuntimeContainerd = windows.RuntimeContainerd
	RuntimeDocker     = windows.RuntimeDocker
)

// Offer is the image as the rule book reads it (windows.ImageOnHost).
func (img Image) Offer() windows.ImagePlatforms {
	return windows.ImagePlatforms{Ref: img.Ref(), Index: img.Index, Platforms: img.Platforms}
}

// OnHost is windows.ImageOnHost for this image: whether it runs on the
// host, and if not the rule, the stage and upstream's words.
func (img Image) OnHost(h windows.Host) windows.Verdict {
	return windows.ImageOnHost(img.Offer(), h)
}

// PullPlatform is the entry a runtime pulls for a host (IMG-4), from
// windows.ImageOnHost; the error wraps ErrNoMatchingPlatform when nothing
// pulls. What pulls may still fail to start (StartsOn).
func PullPlatform(img Image, runtime, os, arch string, host windows.Build) (Platform, error) {
	v := img.OnHost(windows.Host{OS: os, Arch: arch, Build: host, Runtime: runtime})
	if v.Entry.OS == "" && !v.Runs {
		return Platform{}, v.Err()
	}
	return v.Entry, nil
}

// StartsOn reports whether a pulled entry starts process-isolated on host
// (IMG-2), from windows.ImageOnHost; Linux entries and unknown host builds
// always start.
func StartsOn(p Platform, host windows.Build) bool {
	one := windows.ImagePlatforms{Platforms: []Platform{p}}
	return windows.ImageOnHost(one, windows.Host{OS: p.OS, Arch: p.Architecture, Build: host}).Runs
}
