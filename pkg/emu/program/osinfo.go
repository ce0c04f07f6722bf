package program

import "fmt"

// OSInfo is what the container's OS says about itself: the node's facts
// (a process-isolated Windows container shares the host's kernel, a Linux
// container its node's). The node fills it from its Node object; a zero
// OSInfo is an OS that says nothing (versions of zeros, empty names).
type OSInfo struct {
	// Windows: the version major.minor.build.UBR and the registry's
	// CurrentVersion values.
	Major, Minor, Build, UBR             int
	ProductName, EditionID               string
	ReleaseID, DisplayVersion, PSVersion string
	// KernelRelease is a Linux node's kernel release (uname -r).
	KernelRelease string
}

// Version is the full version, major.minor.build.UBR, as ver prints it.
func (o OSInfo) Version() string {
	return fmt.Sprintf("%d.%d.%d.%d", o.Major, o.Minor, o.Build, o.UBR)
}

// NTVersion is the version .NET's Environment.OSVersion gives, without the
// UBR: major.minor.build.0.
func (o OSInfo) NTVersion() string {
	return fmt.Sprintf("%d.%d.%d.0", o.Major, o.Minor, o.Build)
}

// Caption is Win32_OperatingSystem's Caption: "Microsoft " and the
// product name.
func (o OSInfo) Caption() string {
	if o.ProductName == "" {
		return ""
	}
	return "Microsoft " + o.ProductName
}
