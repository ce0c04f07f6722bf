package windows

import (
	"strconv"
	"strings"
)

// Release is one Windows Server release (rule IMG-1).
type Release struct {
	// Build is the build number shared by every patch level of the release.
	Build int
	// Names are the names people and image tags use for the release, the
	// preferred one first. Matching is case-insensitive.
	Names []string
	// ProductName is what the kubelet reports as node.status.nodeInfo.osImage
	// (rule KLT-1). It comes from the registry's ProductName, which carries no
	// year for the Semi-Annual/Annual Channel releases.
	ProductName string
	// LTSC is true for Long-Term Servicing Channel releases.
	LTSC bool
	// UBR is a real update build revision the emulated nodes report. The
	// values are the January 2024 cumulative updates for releases still
	// serviced then (17763.5329 is the KLT-1 example), and the final update for
	// releases whose servicing had ended.
	UBR int
	// ReleaseID is the registry's ReleaseId (HKLM:\SOFTWARE\Microsoft\Windows
	// NT\CurrentVersion), which Get-ComputerInfo shows as WindowsVersion; it
	// stays 2009 from 20H2 on.
	ReleaseID string
	// DisplayVersion is the registry's DisplayVersion, which releases before
	// 20H2 do not have ("").
	DisplayVersion string
	// EditionID is the registry's EditionID of the release's Datacenter
	// Server Core: ServerDatacenter for LTSC, ServerDatacenterACor for the
	// Semi-Annual and Annual Channel.
	EditionID string
}

// windowsMajor and windowsMinor are the same for every Windows Server release
// since 2016; only the build differs.
const (
	windowsMajor = 10
	windowsMinor = 0
)

// Build numbers that rules refer to by name.
const (
	Build2016 = 14393
	Build2019 = 17763
	Build1903 = 18362
	Build1909 = 18363
	Build2004 = 19041
	Build20H2 = 19042
	Build2022 = 20348
	Build23H2 = 25398
	Build2025 = 26100
)

// The EditionIDs of a Datacenter Server Core installation.
const (
	editionLTSC = "ServerDatacenter"
	editionSAC  = "ServerDatacenterACor"
)

// releases is the IMG-1 table in ascending build order.
var releases = []Release{
	{Build: Build2016, Names: []string{"2016", "ltsc2016", "1607"}, ProductName: "Windows Server 2016 Datacenter", LTSC: true, UBR: 6614, ReleaseID: "1607", DisplayVersion: "", EditionID: editionLTSC},
	{Build: Build2019, Names: []string{"2019", "ltsc2019", "1809"}, ProductName: "Windows Server 2019 Datacenter", LTSC: true, UBR: 5329, ReleaseID: "1809", DisplayVersion: "", EditionID: editionLTSC},
	{Build: Build1903, Names: []string{"1903"}, ProductName: "Windows Server Datacenter", UBR: 1256, ReleaseID: "1903", DisplayVersion: "", EditionID: editionSAC},
	{Build: Build1909, Names: []string{"1909"}, ProductName: "Windows Server Datacenter", UBR: 1556, ReleaseID: "1909", DisplayVersion: "", EditionID: editionSAC},
	{Build: Build2004, Names: []string{"2004"}, ProductName: "Windows Server Datacenter", UBR: 1415, ReleaseID: "2004", DisplayVersion: "", EditionID: editionSAC},
	{Build: Build20H2, Names: []string{"20H2"}, ProductName: "Windows Server Datacenter", UBR: 1889, ReleaseID: "2009", DisplayVersion: "20H2", EditionID: editionSAC},
	{Build: Build2022, Names: []string{"2022", "ltsc2022"}, ProductName: "Windows Server 2022 Datacenter", LTSC: true, UBR: 2227, ReleaseID: "2009", DisplayVersion: "21H2", EditionID: editionLTSC},
	{Build: Build23H2, Names: []string{"23H2"}, ProductName: "Windows Server Datacenter", UBR: 643, ReleaseID: "2009", DisplayVersion: "23H2", EditionID: editionSAC},
	{Build: Build2025, Names: []string{"2025", "ltsc2025"}, ProductName: "Windows Server 2025 Datacenter", LTSC: true, UBR: 2314, ReleaseID: "2009", DisplayVersion: "24H2", EditionID: editionLTSC},
}

// Releases returns the IMG-1 table in ascending build order. The caller owns
// the returned slice.
func Releases() []Release {
	out := make([]Release, len(releases))
	for i, r := range releases {
		r.Names = append([]string(nil), r.Names...)
		out[i] = r
	}
	return out
}

// Name is the release's preferred name, e.g. "2019" or "20H2".
func (r Release) Name() string {
	if len(r.Names) == 0 {
		return strconv.Itoa(r.Build)
	}
	return r.Names[0]
}

// Version is the full version an emulated node of this release reports
// (kernelVersion, KLT-1): 10.0.<build>.<UBR>.
func (r Release) Version() Build {
	return Build{Major: windowsMajor, Minor: windowsMinor, Build: r.Build, Revision: r.UBR}
}

// ReleaseByBuild finds the release with the given build number.
func ReleaseByBuild(build int) (Release, bool) {
	for _, r := range Releases() {
		if r.Build == build {
			return r, true
		}
	}
	return Release{}, false
}

// ReleaseByName finds a release by any of its names ("2019", "ltsc2019",
// "1809", "20h2"), by build number ("17763") or by version ("10.0.17763",
// with or without a revision). Matching is case-insensitive.
func ReleaseByName(name string) (Release, bool) {
	n := strings.TrimSpace(name)
	for _, r := range Releases() {
		for _, alias := range r.Names {
			if strings.EqualFold(alias, n) {
				return r, true
			}
		}
	}
	if build, err := strconv.Atoi(n); err == nil {
		return ReleaseByBuild(build)
	}
	if b, err := ParseBuild(n); err == nil && b.Major == windowsMajor && b.Minor == windowsMinor {
		return ReleaseByBuild(b.Build)
	}
	return Release{}, false
}
