// Package imageinfo answers which platforms an image offers (rule IMG-3) and
// which of them a node would run (IMG-2, IMG-4), from a built-in catalog.
// It does no I/O; a registry client can fill Image values the same way.
package imageinfo

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/winkube/winkube/pkg/windows"
)

// Platform is one entry of an OCI image index (manifests[].platform,
// IMG-3); the rule book's type, so verdicts need no conversion.
type Platform = windows.Platform

// Image is what is known about one image reference.
type Image struct {
	// Repository is the normalised repository, e.g. docker.io/library/nginx.
	Repository string
	// Tag is the tag, "latest" when the reference had neither tag nor digest.
	Tag string
	// Digest is the digest the reference pinned, if any.
	Digest string
	// Platforms are the index entries the image offers.
	Platforms []Platform
	// Known is false when the catalog had no entry; Platforms is then a guess.
	Known bool
	// Cataloged is true when the repository is in the catalog, even if the
	// tag's build is not known (Known=false). When it is false, Platforms is
	// the linux/amd64 guess and says nothing about the image.
	Cataloged bool
	// Index is true when the reference resolves to an image index (manifest
	// list) and false for a single-platform image. containerd matches an
	// index's entries against the host at pull time and a single image not
	// at all, so the two fail at different stages (IMG-4).
	Index bool
	// Missing, when not nil, says the reference cannot be pulled at all:
	// ErrTagNotFound for a tag the repository does not publish,
	// ErrNoSuchHost for a registry whose name does not resolve,
	// ErrUnauthorized for a registry that refused the pull secrets,
	// ErrNoRepository for a repository the registry does not have.
	Missing error
	// Config is the image config (entrypoint, cmd, environment, user)
	// when the answer's source had it: an image a user imported. nil
	// means the catalog's default command, if it has one.
	Config *Config
}

// Config is what the runtime takes from an image's config: the default
// command and the process's environment and user.
type Config struct {
	Entrypoint []string
	Cmd        []string
	// Env is NAME=value, in the config's order.
	Env []string
	// User is the config's User ("1000", "1000:1000", "nobody", or on
	// Windows "ContainerUser"); "" means root / ContainerAdministrator.
	User string
}

// Why an image cannot be pulled (Image.Missing). Test with errors.Is.
var (
	// ErrTagNotFound: the registry has no manifest for the tag.
	ErrTagNotFound = errors.New("not found")
	// ErrNoSuchHost: the registry's host name does not resolve.
	ErrNoSuchHost = errors.New("no such host")
	// ErrUnauthorized: the registry refused the credentials (or their
	// absence) with 401.
	ErrUnauthorized = errors.New("401 Unauthorized")
	// ErrNoRepository: the registry has no such repository (Docker Hub
	// answers a pull of one with insufficient_scope).
	ErrNoRepository = errors.New("repository does not exist")
)

// Ref renders the normalised reference.
func (img Image) Ref() string {
	return reference{repository: img.Repository, tag: img.Tag, digest: img.Digest}.String()
}

// unknownPlatforms is the guess for images the catalog does not know:
// unknown images are treated as Linux.
func unknownPlatforms() []Platform { return linuxPlatforms(amd64) }

// ReleaseFromTag reports the Windows release a tag names, the way Lookup
// reads tags of Windows repositories: "ltsc2019", "1809", "20H2",
// "windowsservercore-ltsc2022", "4.8-windowsservercore-ltsc2019",
// "nanoserver-1809" or a full version such as "10.0.17763.5329". A linter may
// use it as a hint for images the catalog does not know.
func ReleaseFromTag(tag string) (windows.Release, bool) {
	r, _, ok := releaseFromTag(tag)
	return r, ok
}

// Lookup normalises ref (adds docker.io/library/, defaults the tag to latest,
// keeps a digest) and returns its catalog entry. Unknown images come back
// with Known=false and a single linux/amd64 platform. A Windows repository
// whose tag names no release (or only a digest) also comes back Known=false,
// with a windows/amd64 entry that pins no build.
func Lookup(ref string) Image {
	r := parseReference(ref)
	img := Image{Repository: r.repository, Tag: r.tag, Digest: r.digest}
	if unresolvableHost(r.repository) {
		img.Missing = fmt.Errorf("%w: %s", ErrNoSuchHost, r.repository)
	}
	if !officialImage(r.repository) {
		img.Missing = fmt.Errorf("%w: %s", ErrNoRepository, r.repository)
	}
	entry, ok := catalog[r.repository]
	if !ok {
		// Public images are almost always indexes; the guess only matters
		// for Windows hosts, where a Linux image fails to pull either way.
		img.Platforms, img.Index = unknownPlatforms(), true
		return img
	}
	img.Platforms, img.Known = entry.platforms(strings.ToLower(r.tag))
	img.Index = !entry.singleTag(strings.ToLower(r.tag))
	img.Cataloged = true
	if entry.closed && r.digest == "" && !img.Known {
		img.Missing = fmt.Errorf("%w: %s publishes no tag %q", ErrTagNotFound, r.repository, r.tag)
	}
	return img
}

// unresolvableHosts are registry names no DNS server answers: the .invalid
// top-level domain (RFC 6761) and the registry upstream's node conformance
// test uses to prove a pull from a bad registry fails.
func unresolvableHost(repository string) bool {
	host, _, _ := strings.Cut(repository, "/")
	host, _, _ = strings.Cut(host, ":")
	return host == "invalid.registry.k8s.io" || strings.HasSuffix(host, ".invalid")
}

// platforms resolves a tag of a catalog repository.
func (e repoEntry) platforms(tag string) ([]Platform, bool) {
	if ps, ok := e.tags[tag]; ok {
		return clonePlatforms(ps), true
	}
	if e.hostProcessTags != "" && strings.HasSuffix(tag, e.hostProcessTags) {
		return []Platform{{OS: "windows", Architecture: amd64}}, true
	}
	switch e.kind {
	case windowsRepo:
		if _, b, ok := releaseFromTag(tag); ok {
			return []Platform{windowsBuildPlatform(b.String())}, true
		}
		if len(e.fallback) > 0 && tag != "" {
			return clonePlatforms(e.fallback), true
		}
		return []Platform{{OS: "windows", Architecture: amd64}}, false
	case mixedRepo:
		if _, b, ok := releaseFromTag(tag); ok {
			return []Platform{windowsBuildPlatform(b.String())}, true
		}
		if namesWindowsFamily(tag) {
			// powershell:nanoserver names Windows but no build.
			return []Platform{{OS: "windows", Architecture: amd64}}, false
		}
		if win := e.sharedWindows[sharedTagVersion(tag)]; len(win) > 0 {
			return join(e.linux, win), true
		}
	case hostProcessRepo:
		return []Platform{{OS: "windows", Architecture: amd64}}, true
	case linuxRepo:
		// A Linux repository's Windows variants (golang:1.22-nanoserver-
		// ltsc2022, redis:3.0-nanoserver) are Windows, never its Linux.
		if namesWindowsFamily(tag) {
			return e.windowsVariant(tag)
		}
	}
	return clonePlatforms(e.linux), len(e.linux) > 0 && !e.guess
}

// windowsVariant resolves a tag naming a Windows family in a Linux
// repository: the release it names, else the repository's fallback, else
// a Windows entry that pins no build (a guess).
func (e repoEntry) windowsVariant(tag string) ([]Platform, bool) {
	if _, b, ok := releaseFromTag(tag); ok {
		return []Platform{windowsBuildPlatform(b.String())}, true
	}
	if len(e.fallback) > 0 {
		return clonePlatforms(e.fallback), true
	}
	return []Platform{{OS: "windows", Architecture: amd64}}, false
}

// singleTag reports whether the tag is a single manifest, not an index.
func (e repoEntry) singleTag(tag string) bool {
	if e.single {
		return true
	}
	if !e.fallbackSingle || !namesWindowsFamily(tag) {
		return false
	}
	_, _, named := releaseFromTag(tag)
	return !named
}

func clonePlatforms(ps []Platform) []Platform {
	out := make([]Platform, len(ps))
	for i, p := range ps {
		p.OSFeatures = append([]string(nil), p.OSFeatures...)
		if len(p.OSFeatures) == 0 {
			p.OSFeatures = nil
		}
		out[i] = p
	}
	return out
}

// The two IMG-4 failures, in the words the runtime uses (the rule
// book's). Test with errors.Is.
var (
	// ErrNoMatchingPlatform: the image has no entry the node pulls; the
	// kubelet shows ErrImagePull.
	ErrNoMatchingPlatform = windows.ErrNoMatchingPlatform
	// ErrOSVersionMismatch: a Windows image of a build the host cannot run
	// process-isolated (HCS error 0xc0370101).
	ErrOSVersionMismatch = windows.ErrOSVersionMismatch
)

// MatchHost is windows.ImageOnHost for a containerd node of the given
// OS, architecture and Windows build: the entry it runs, or why not
// (IMG-2, IMG-3, IMG-4). A zero host build accepts every Windows entry.
// Callers that know the node use OnHost with windows.HostOf instead.
func MatchHost(img Image, os, arch string, host windows.Build) (Platform, error) {
	v := img.OnHost(windows.Host{OS: os, Arch: arch, Build: host, Runtime: windows.RuntimeContainerd})
	if !v.Runs {
		return Platform{}, v.Err()
	}
	return v.Entry, nil
}

// versionOf parses an entry's os.version; empty or bad values are the zero
// build.
func versionOf(p Platform) windows.Build {
	b, err := windows.ParseBuild(p.OSVersion)
	if err != nil {
		return windows.Build{}
	}
	return b
}

func normaliseOS(os string) string { return windows.NormaliseOS(os) }

// WindowsBuilds returns the Windows builds the image's index entries pin, in
// ascending order without duplicates; empty for Linux-only images. An entry
// without os.version pins no build (see AnyWindowsBuild).
func (img Image) WindowsBuilds() []windows.Build {
	seen := map[windows.Build]bool{}
	var out []windows.Build
	for _, p := range img.Platforms {
		if normaliseOS(p.OS) != "windows" || p.OSVersion == "" {
			continue
		}
		b, err := windows.ParseBuild(p.OSVersion)
		if err != nil || seen[b] {
			continue
		}
		seen[b] = true
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Compare(out[j]) < 0 })
	return out
}

// AnyWindowsBuild reports whether the image has a Windows entry without
// os.version, which matches every host build (IMG-3).
func (img Image) AnyWindowsBuild() bool {
	for _, p := range img.Platforms {
		if normaliseOS(p.OS) == "windows" && p.OSVersion == "" {
			return true
		}
	}
	return false
}

// OSes returns the operating systems the image offers, sorted, without
// duplicates.
func (img Image) OSes() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range img.Platforms {
		os := normaliseOS(p.OS)
		if os != "" && !seen[os] {
			seen[os] = true
			out = append(out, os)
		}
	}
	sort.Strings(out)
	return out
}

// HasOS reports whether the image offers the given OS.
func (img Image) HasOS(os string) bool {
	for _, o := range img.OSes() {
		if o == normaliseOS(os) {
			return true
		}
	}
	return false
}
