package imageinfo

import (
	"strings"

	"github.com/winkube/winkube/pkg/windows"
)

// repoKind says what a catalog repository publishes.
type repoKind int

const (
	// linuxRepo images are Linux for every tag.
	linuxRepo repoKind = iota
	// windowsRepo images are Windows for every tag; a tag naming a release
	// resolves to that release's build.
	windowsRepo
	// mixedRepo publishes Linux and Windows tags (PowerShell): tags naming a
	// Windows release are Windows, the rest are Linux.
	mixedRepo
	// hostProcessRepo images are Windows HostProcess images for every tag:
	// built FROM the HostProcess base image without os.version (its README
	// asks for no platform information), they run on any Windows build.
	hostProcessRepo
)

// repoEntry is one repository of the built-in catalog.
type repoEntry struct {
	kind repoKind
	// tags lists tags whose platforms are known exactly (multi-platform
	// indexes, pause images). Keys are lower case.
	tags map[string][]Platform
	// linux is the platform list of every other tag of a linux or mixed repo.
	linux []Platform
	// guess marks linux as a best guess for tags not listed (a newer pause
	// tag is probably like the newest listed one), so Lookup says Known=false.
	guess bool
	// fallback, for a windows repository, is the platform list of tags that
	// name no release. The frozen Docker Hub repositories (microsoft/iis,
	// …) built those tags, latest among them, on Windows Server 2016.
	// For a linux repository it is the platform list of its tags that name
	// a Windows family (nanoserver, windowsservercore) but no release.
	fallback []Platform
	// fallbackSingle marks those fallback tags as single manifests, as
	// Docker Hub's library pushed its first Windows tags (redis:3.0-nanoserver).
	fallbackSingle bool
	// single marks a repository whose tags are single-platform images (one
	// manifest, no index), as `docker build` and `docker push` leave them.
	// Every public repository of the catalog publishes indexes: MCR wraps
	// even one-build tags such as servercore:ltsc2022 or
	// iis:windowsservercore-ltsc2022 in an index whose one entry carries
	// os.version, which is why containerd can refuse them at pull (IMG-4).
	single bool
	// closed marks a repository whose tags all name a Windows release (the
	// base OS images publish no latest): any other tag does not exist and
	// its pull fails with "not found".
	closed bool
	// hostProcessTags, when set, is the suffix of the tags that are
	// HostProcess images (csi-driver-smb's -windows-hp builds, FROM the
	// HostProcess base image) beside the repository's other tags.
	hostProcessTags string
	// windowsSingle marks a Linux repository whose Windows tags are
	// single manifests (pushed from a Windows build host), its Linux
	// tags indexes.
	windowsSingle bool
	// sharedWindows, for a mixed repository, lists the Windows entries of
	// its multi-platform version tags ("6.0", "6.0.36") by major.minor.
	sharedWindows map[string][]Platform
}

// Architectures the catalog uses.
const (
	amd64 = "amd64"
	arm64 = "arm64"
)

// linuxPlatforms returns one linux platform per architecture.
func linuxPlatforms(arches ...string) []Platform {
	out := make([]Platform, 0, len(arches))
	for _, a := range arches {
		out = append(out, Platform{OS: "linux", Architecture: a})
	}
	return out
}

// windowsPlatform is the amd64 platform of a release (by any of its names),
// with the release's full os.version including the UBR, as the base images
// publish it.
func windowsPlatform(name string) Platform {
	r, ok := windows.ReleaseByName(name)
	if !ok {
		// The catalog only names releases from the IMG-1 table; an unknown
		// name is a catalog bug, shown as a version-less entry rather than a
		// panic.
		return Platform{OS: "windows", Architecture: amd64}
	}
	return Platform{OS: "windows", Architecture: amd64, OSVersion: r.Version().String()}
}

// windowsBuildPlatform is the amd64 platform for an explicit os.version.
func windowsBuildPlatform(osVersion string) Platform {
	return Platform{OS: "windows", Architecture: amd64, OSVersion: osVersion}
}

// windowsPlatforms is windowsPlatform for several releases.
func windowsPlatforms(names ...string) []Platform {
	out := make([]Platform, 0, len(names))
	for _, n := range names {
		out = append(out, windowsPlatform(n))
	}
	return out
}

// join concatenates platform lists into a new slice.
func join(lists ...[]Platform) []Platform {
	var out []Platform
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Linux architectures of the Kubernetes pause image (build/pause Makefile).
var pauseLinux = linuxPlatforms(amd64, "arm", arm64, "ppc64le", "s390x")

// registryK8sPause is registry.k8s.io/pause. The Windows os.versions per tag
// follow build/pause/CHANGELOG.md: 3.4.1 added 20H2 to 1809/1903/1909/2004,
// 3.6 added 2022, 3.7 dropped 1903/1909/2004, 3.9 dropped 20H2 and 3.10.2
// added 2025.
func registryK8sPause() map[string][]Platform {
	v34 := windowsPlatforms("1809", "1903", "1909", "2004")
	v341 := join(v34, windowsPlatforms("20H2"))
	v36 := join(v341, windowsPlatforms("ltsc2022"))
	v37 := windowsPlatforms("1809", "20H2", "ltsc2022")
	v39 := windowsPlatforms("1809", "ltsc2022")
	v3102 := windowsPlatforms("1809", "ltsc2022", "ltsc2025")
	return map[string][]Platform{
		"3.4":    join(pauseLinux, v34),
		"3.4.1":  join(pauseLinux, v341),
		"3.5":    join(pauseLinux, v341),
		"3.6":    join(pauseLinux, v36),
		"3.7":    join(pauseLinux, v37),
		"3.8":    join(pauseLinux, v37),
		"3.9":    join(pauseLinux, v39),
		"3.10":   join(pauseLinux, v39),
		"3.10.1": join(pauseLinux, v39),
		"3.10.2": join(pauseLinux, v3102),
		// Before 3.4 the Kubernetes pause image was Linux only.
		"3.1": pauseLinux,
		"3.2": pauseLinux,
		"3.3": pauseLinux,
	}
}

// catalog is the built-in image catalog, keyed by normalised repository.
var catalog = buildCatalog()

func buildCatalog() map[string]repoEntry {
	pause := registryK8sPause()
	c := map[string]repoEntry{
		// Windows base images (tags name a release: ltsc2019, 1809, 20H2, …).
		// They publish no latest tag.
		"mcr.microsoft.com/windows/servercore": {kind: windowsRepo, closed: true},
		"mcr.microsoft.com/windows/nanoserver": {kind: windowsRepo, closed: true},
		"mcr.microsoft.com/windows/server":     {kind: windowsRepo, closed: true},
		"mcr.microsoft.com/windows":            {kind: windowsRepo, closed: true},
		// IIS: windowsservercore-ltsc20xx tags plus a multi-platform latest.
		"mcr.microsoft.com/windows/servercore/iis": {kind: windowsRepo, tags: map[string][]Platform{
			"latest": windowsPlatforms("ltsc2019", "ltsc2022", "ltsc2025"),
		}},
		// .NET Framework: 4.8 spans 2016–2025, 4.8.1 (and latest) 2022–2025.
		"mcr.microsoft.com/dotnet/framework/aspnet": {kind: windowsRepo, tags: map[string][]Platform{
			"4.8":    windowsPlatforms("ltsc2016", "ltsc2019", "ltsc2022", "ltsc2025"),
			"4.8.1":  windowsPlatforms("ltsc2022", "ltsc2025"),
			"latest": windowsPlatforms("ltsc2022", "ltsc2025"),
		}},
		"mcr.microsoft.com/dotnet/framework/runtime": {kind: windowsRepo, tags: map[string][]Platform{
			"4.8":    windowsPlatforms("ltsc2016", "ltsc2019", "ltsc2022", "ltsc2025"),
			"4.8.1":  windowsPlatforms("ltsc2022", "ltsc2025"),
			"latest": windowsPlatforms("ltsc2022", "ltsc2025"),
		}},
		"mcr.microsoft.com/dotnet/framework/samples": {kind: windowsRepo, tags: map[string][]Platform{
			"aspnetapp": windowsPlatforms("ltsc2019", "ltsc2022", "ltsc2025"),
			"dotnetapp": windowsPlatforms("ltsc2019", "ltsc2022", "ltsc2025"),
			"latest":    windowsPlatforms("ltsc2019", "ltsc2022", "ltsc2025"),
		}},
		// PowerShell publishes Linux (ubuntu, alpine, …) and nanoserver tags;
		// latest is an index of both.
		"mcr.microsoft.com/powershell": {kind: mixedRepo, linux: linuxPlatforms(amd64, arm64), tags: map[string][]Platform{
			"latest": join(linuxPlatforms(amd64, arm64), windowsPlatforms("1809", "ltsc2022")),
			"lts":    join(linuxPlatforms(amd64, arm64), windowsPlatforms("1809", "ltsc2022")),
		}},
		// Pause images (IMG-5).
		"registry.k8s.io/pause": {kind: linuxRepo, linux: pause["3.10.2"], guess: true, tags: pause},
		"mcr.microsoft.com/oss/kubernetes/pause": {kind: linuxRepo, guess: true, linux: join(linuxPlatforms(amd64, arm64), windowsPlatforms("1809", "2004", "20H2", "ltsc2022")), tags: map[string][]Platform{
			// Microsoft's signed build of the same sources (seed 002).
			"3.6": join(linuxPlatforms(amd64, arm64), windowsPlatforms("1809", "2004", "20H2", "ltsc2022")),
			// The pause image seed 000 names; it has wincat (IMG-5, 1.15+).
			"1.4.1": join(linuxPlatforms(amd64), windowsPlatforms("1809", "1903", "1909", "2004")),
		}},
		// Seed 004's older pause image: Windows only, 1803 (17134) and 1809.
		"mcr.microsoft.com/k8s/core/pause": {kind: windowsRepo, tags: map[string][]Platform{
			"1.2.0": {windowsBuildPlatform("10.0.17134.1"), windowsPlatform("1809")},
		}},
		// HostProcess images: the base image and the sig-windows-tools
		// builds of flannel and kube-proxy that winkube's add-ons run on
		// Windows nodes (pkg/addons).
		"mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image": {kind: hostProcessRepo},
		// An application image a user builds on a Windows host and pushes
		// with plain `docker push`: a single manifest whose config names the
		// build, no index. example.com is reserved for documentation (RFC
		// 2606), so this entry never shadows a real image; it stands for
		// every such image and shows the IMG-4 failure at container start.
		"registry.example.com/windows/app":     {kind: windowsRepo, single: true},
		"docker.io/sigwindowstools/flannel":    {kind: hostProcessRepo},
		"docker.io/sigwindowstools/kube-proxy": {kind: hostProcessRepo},
		// windows_exporter's release workflow builds windows/amd64 alone
		// with buildx FROM the HostProcess base image (its Dockerfile), no
		// per-release variants, and pushes it to three registries.
		"ghcr.io/prometheus-community/windows-exporter":  {kind: hostProcessRepo},
		"docker.io/prometheuscommunity/windows-exporter": {kind: hostProcessRepo},
		"quay.io/prometheuscommunity/windows-exporter":   {kind: hostProcessRepo},
	}
	// The kubernetes-csi sidecars (release-tools' BUILD_PLATFORMS): five
	// Linux architectures and Windows nanoserver 1809 and ltsc2022, each
	// an index; their entrypoints are the binaries (command.go).
	for _, name := range csiSidecars {
		c[name] = repoEntry{kind: linuxRepo, linux: csiSidecarPlatforms}
	}
	// csi-driver-smb's smbplugin: Linux amd64/arm64/arm/v7 with Windows
	// 1809 and ltsc2022 per release (its Makefile's ALL_OS_ARCH), and
	// HostProcess builds tagged -windows-hp.
	for _, name := range smbPluginRepos {
		c[name] = repoEntry{kind: linuxRepo, linux: join(linuxPlatforms(amd64, arm64, "arm"), windowsPlatforms("1809", "ltsc2022")), hostProcessTags: "-windows-hp"}
	}
	// The Secrets Store CSI Driver: Linux amd64/arm64 and Windows
	// nanoserver 1809 and ltsc2022 (docker/Makefile).
	for _, name := range []string{"registry.k8s.io/csi-secrets-store/driver", "gcr.io/k8s-staging-csi-secrets-store/driver"} {
		c[name] = repoEntry{kind: linuxRepo, linux: join(linuxPlatforms(amd64, arm64), windowsPlatforms("1809", "ltsc2022"))}
	}
	c["registry.k8s.io/csi-secrets-store/driver-crds"] = repoEntry{kind: linuxRepo, linux: linuxPlatforms(amd64, arm64)}
	for _, name := range e2eImages {
		c["registry.k8s.io/e2e-test-images/"+name] = repoEntry{kind: linuxRepo, linux: e2ePlatforms}
	}
	// kitten and nautilus are built FROM agnhost for the platforms of
	// their BASEIMAGE files: agnhost's without 32-bit arm.
	for _, name := range []string{"kitten", "nautilus"} {
		c["registry.k8s.io/e2e-test-images/"+name] = repoEntry{kind: linuxRepo, linux: join(linuxPlatforms(amd64, arm64, "ppc64le", "s390x"), windowsPlatforms("1809", "ltsc2022"))}
	}
	// etcd (cluster/images/etcd's Makefile): five Linux architectures and
	// Windows nanoserver 1809 and ltsc2022, as the e2e images.
	c["registry.k8s.io/etcd"] = repoEntry{kind: linuxRepo, linux: e2ePlatforms}
	for _, name := range legacyHubRepos {
		c[normaliseRepository(name)] = repoEntry{kind: windowsRepo, fallback: []Platform{windowsPlatform("ltsc2016")}}
	}
	// .NET publishes Linux tags and nanoserver/windowsservercore tags that
	// name their release (8.0-nanoserver-ltsc2022). Its multi-platform
	// version tags carried Nano Server entries up to .NET 7 and are
	// Linux-only since .NET 8 (dotnet-docker's supported-tags.md).
	dotnetShared := map[string][]Platform{
		"6.0": windowsPlatforms("1809", "ltsc2022"),
		"7.0": windowsPlatforms("1809", "ltsc2022"),
	}
	for _, name := range []string{"mcr.microsoft.com/dotnet/aspnet", "mcr.microsoft.com/dotnet/runtime", "mcr.microsoft.com/dotnet/sdk"} {
		c[name] = repoEntry{kind: mixedRepo, linux: linuxPlatforms(amd64, "arm", arm64), sharedWindows: dotnetShared}
	}
	for _, name := range fluentBitRepos {
		c[name] = repoEntry{kind: linuxRepo, linux: linuxPlatforms(amd64, arm64, "arm"), windowsSingle: true}
	}
	for _, name := range commonLinuxImages {
		c[normaliseRepository(name)] = repoEntry{kind: linuxRepo, linux: linuxPlatforms(amd64, arm64)}
	}
	// redis published nanoserver and windowsservercore tags (3.0, 3.2) in
	// 2016-2017, built on microsoft/nanoserver and windowsservercore, that
	// is Windows Server 2016, as single manifests (docker-library
	// repo-info's redis tag details).
	redis := c["docker.io/library/redis"]
	redis.fallback, redis.fallbackSingle = windowsPlatforms("ltsc2016"), true
	c["docker.io/library/redis"] = redis
	// agnhost 2.63.0 (test/images/agnhost BASEIMAGE): four Linux
	// architectures, no 32-bit arm. Its BASEIMAGE also lists ltsc2025;
	// the catalog claims only the Windows builds every current tag has.
	agnhost := c["registry.k8s.io/e2e-test-images/agnhost"]
	agnhost.tags = map[string][]Platform{
		"2.63.0": join(linuxPlatforms(amd64, arm64, "ppc64le", "s390x"), windowsPlatforms("1809", "ltsc2022")),
	}
	c["registry.k8s.io/e2e-test-images/agnhost"] = agnhost
	return c
}

// csiSidecars are the kubernetes-csi sidecar images the CSI charts run
// beside their drivers.
var csiSidecars = []string{
	"registry.k8s.io/sig-storage/csi-node-driver-registrar", "registry.k8s.io/sig-storage/livenessprobe",
	"registry.k8s.io/sig-storage/csi-provisioner", "registry.k8s.io/sig-storage/csi-resizer",
}

// csiSidecarPlatforms are release-tools' CSI_PROW_BUILD_PLATFORMS.
var csiSidecarPlatforms = join(linuxPlatforms(amd64, "ppc64le", "s390x", "arm", arm64), windowsPlatforms("1809", "ltsc2022"))

// smbPluginRepos are csi-driver-smb's release and staging repositories.
var smbPluginRepos = []string{"registry.k8s.io/sig-storage/smbplugin", "gcr.io/k8s-staging-sig-storage/smbplugin"}

// e2eImages are the Kubernetes e2e test images (test/images/*) whose
// BASEIMAGE lists Windows builds next to the Linux ones.
var e2eImages = []string{
	"agnhost", "busybox", "httpd", "nginx", "jessie-dnsutils", "glibc-dns-testing", "nonroot",
	"resource-consumer", "sample-apiserver",
}

// e2ePlatforms are the platforms of every current tag of an e2e test image:
// five Linux architectures plus Windows 1809 and ltsc2022. Older tags also
// carried 1903–20H2 builds; no current host runs those (IMG-2), so leaving
// them out changes no verdict on a 2019, 2022 or 2025 node.
var e2ePlatforms = join(linuxPlatforms(amd64, "arm", arm64, "ppc64le", "s390x"), windowsPlatforms("1809", "ltsc2022"))

// legacyHubRepos are Microsoft's Windows repositories on Docker Hub from
// before MCR. They are frozen; their tags name ltsc2016/sac2016, 1709, 1803
// or a full 10.0.x version, and every other tag (latest included) was a
// Windows Server 2016 image.
var legacyHubRepos = []string{
	"microsoft/iis", "microsoft/windowsservercore", "microsoft/nanoserver",
	"microsoft/dotnet-framework", "microsoft/aspnet",
}

// commonLinuxImages are popular Linux-only images; every tag is linux
// amd64 and arm64.
var commonLinuxImages = []string{
	"nginx", "busybox", "alpine", "ubuntu", "debian", "redis", "postgres",
	"httpd", "mysql", "mariadb", "mongo", "memcached", "python", "node",
	"golang", "centos", "fedora", "traefik", "rabbitmq",
	"registry.k8s.io/coredns/coredns", "registry.k8s.io/kube-proxy",
	"registry.k8s.io/kube-apiserver", "registry.k8s.io/kube-scheduler",
	"registry.k8s.io/kube-controller-manager",
	"docker.io/flannel/flannel", "quay.io/coreos/flannel", "ghcr.io/flannel-io/flannel",
	"docker.io/flannel/flannel-cni-plugin", "ghcr.io/flannel-io/flannel-cni-plugin",
}

// releaseFromTag finds the Windows release a tag names, e.g. "ltsc2019",
// "1809", "windowsservercore-ltsc2022", "4.8-windowsservercore-ltsc2019",
// "nanoserver-20H2" or a full version "10.0.17763.5329". Tags are split into
// tokens so a date like 20240109 is not read as release 2004.
func releaseFromTag(tag string) (windows.Release, windows.Build, bool) {
	// Only a 10.0.x version is a Windows build; "4.7.2" is a .NET version.
	// A version tag may carry an architecture: 10.0.17763.5329-amd64.
	version, _, _ := strings.Cut(tag, "-")
	if b, err := windows.ParseBuild(version); err == nil && b.Major == 10 && b.Minor == 0 {
		r, ok := windows.ReleaseByBuild(b.Build)
		if !ok {
			r = windows.Release{Build: b.Build}
		}
		return r, b, true
	}
	tokens := strings.FieldsFunc(tag, func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	// Search from the end: the release is usually the last part of a tag.
	for i := len(tokens) - 1; i >= 0; i-- {
		if r, ok := releaseByToken(tokens[i]); ok {
			return r, r.Version(), true
		}
	}
	return windows.Release{}, windows.Build{}, false
}

// releaseByToken matches one tag token against release names only (not bare
// build numbers, which tags use for other things), then against the
// semi-annual releases the IMG-1 table leaves out.
func releaseByToken(tok string) (windows.Release, bool) {
	for _, r := range windows.Releases() {
		for _, n := range r.Names {
			if strings.EqualFold(n, tok) {
				return r, true
			}
		}
	}
	for _, r := range retiredReleases {
		for _, n := range r.Names {
			if strings.EqualFold(n, tok) {
				return r, true
			}
		}
	}
	return windows.Release{}, false
}

// retiredReleases are Windows Server releases whose images are still
// published but which the IMG-1 table does not list, because no supported
// node runs them: 1709 (16299) and 1803 (17134), and "sac2016", the old
// Docker Hub name of 2016. They resolve to a real os.version, so IMG-2
// rejects them on every current host instead of a version-less entry
// matching any build. The revision is left 0: IMG-2 ignores it.
var retiredReleases = []windows.Release{
	{Build: windows.Build2016, Names: []string{"sac2016"}},
	{Build: 16299, Names: []string{"1709"}},
	{Build: 17134, Names: []string{"1803"}},
}

// windowsFamilyTokens are tag tokens that say an image is Windows even
// when no release is named (powershell:nanoserver).
var windowsFamilyTokens = []string{"nanoserver", "windowsservercore", "servercore", "windows"}

// namesWindowsFamily reports whether a tag has a token such as nanoserver.
func namesWindowsFamily(tag string) bool {
	for _, tok := range strings.FieldsFunc(tag, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		for _, w := range windowsFamilyTokens {
			if strings.EqualFold(tok, w) {
				return true
			}
		}
	}
	return false
}

// sharedTagVersion is the major.minor of a plain version tag ("6.0",
// "6.0.36"), or "" for tags naming anything else (6.0-alpine).
func sharedTagVersion(tag string) string {
	parts := strings.Split(tag, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return ""
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return ""
		}
	}
	return parts[0] + "." + parts[1]
}
