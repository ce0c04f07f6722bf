package windows

import (
	"fmt"
	"strings"
)

// OSFacts is what a node's operating system tells the programs in its
// containers about itself. A process-isolated Windows container shares the
// host's kernel, so ver, [Environment]::OSVersion, the registry's
// CurrentVersion key, Win32_OperatingSystem and systeminfo all report the
// node's build; a Linux container's uname reports the node's kernel.
type OSFacts struct {
	// Version is major.minor.build.UBR; zero on Linux and for a Windows
	// node whose build is unknown.
	Version Build
	// ProductName is the registry's ProductName (Caption without the
	// "Microsoft " of WMI): the node's osImage.
	ProductName string
	// EditionID, ReleaseID and DisplayVersion are the registry values of
	// the release ("" when the build is not in the IMG-1 table, or the
	// release predates the value).
	EditionID, ReleaseID, DisplayVersion string
	// PSVersion is Windows PowerShell 5.1's $PSVersionTable.PSVersion,
	// 5.1.build.UBR; "" when the build is unknown.
	PSVersion string
	// KernelRelease is a Linux node's kernel release (uname -r): its
	// nodeInfo.kernelVersion.
	KernelRelease string
}

// windowsPowerShell is the version of the PowerShell every Windows Server
// since 2016 ships; its build and revision are the OS's.
const windowsPowerShell = "5.1"

// OSFacts derives what the host's OS reports from its node's facts (KLT-1):
// the build and UBR of nodeInfo.kernelVersion, the product name of
// nodeInfo.osImage, and the rest from the release table.
func (h Host) OSFacts() OSFacts {
	if !h.IsWindows() {
		return OSFacts{ProductName: h.OSImage, KernelRelease: h.KernelVersion}
	}
	f := OSFacts{Version: h.Build, ProductName: h.OSImage}
	r, known := ReleaseByBuild(h.Build.Build)
	if known {
		f.EditionID, f.ReleaseID, f.DisplayVersion = r.EditionID, r.ReleaseID, r.DisplayVersion
		if f.ProductName == "" {
			f.ProductName = r.ProductName
		}
	}
	if !h.Build.IsZero() {
		f.PSVersion = fmt.Sprintf("%s.%d.%d", windowsPowerShell, h.Build.Build, h.Build.Revision)
	}
	f.EditionID = edition(f.EditionID, f.ProductName)
	return f
}

// edition is the release's Datacenter EditionID, made Standard for a node
// whose product name says so; ServerDatacenter for an unknown release.
func edition(datacenter, product string) string {
	if datacenter == "" {
		datacenter = editionLTSC
	}
	if strings.HasSuffix(product, " Standard") {
		return strings.Replace(datacenter, "Datacenter", "Standard", 1)
	}
	return datacenter
}
