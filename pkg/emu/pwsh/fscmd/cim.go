package fscmd

import (
	"context"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/dotnet"
	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/format"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

func init() {
	// Get-CimInstance Win32_OperatingSystem's table view.
	format.RegisterFormat(cimOSType, func(f *format.Formatter, o *values.Object) {
		f.TableRow("cimos", o, []format.Column{{Name: "SystemDirectory", Width: 19, Right: false}, {Name: "Organization", Width: 12, Right: false}, {Name: "BuildNumber", Width: 11, Right: false},
			{Name: "RegisteredUser", Width: 14, Right: false}, {Name: "SerialNumber", Width: 12, Right: false}, {Name: "Version", Width: 0, Right: false}})
	})
}

// win32OS is the Win32_OperatingSystem instance of the container's OS.
func win32OS(i *engine.Interp, typeName string) *values.Object {
	os := i.Sys.OS
	return values.NewObject(typeName, "SystemDirectory", `C:\Windows\system32`, "Organization", "",
		"BuildNumber", strconv.Itoa(os.Build), "RegisteredUser", "", "SerialNumber", "",
		"Version", strings.TrimSuffix(os.NTVersion(), ".0"), "Caption", os.Caption(), "CSName", strings.ToUpper(i.Sys.Hostname),
		"OSArchitecture", "64-bit", "OSType", 18, "Manufacturer", "Microsoft Corporation", "WindowsDirectory", `C:\Windows`)
}

// CIM and WMI type names of Win32_OperatingSystem, as Get-Member shows them.
const (
	cimOSType = "Microsoft.Management.Infrastructure.CimInstance#root/cimv2/Win32_OperatingSystem"
	wmiOSType = `System.Management.ManagementObject#root\cimv2\Win32_OperatingSystem`
)

// getOSInstance is Get-CimInstance and Get-WmiObject for the one class
// the emulation has, Win32_OperatingSystem.
func getOSInstance(name string) func(context.Context, *engine.Call) error {
	return func(_ context.Context, c *engine.Call) error {
		class := c.Str("ClassName") + c.Str("Class")
		if !strings.EqualFold(class, "Win32_OperatingSystem") || c.Has("Filter") {
			return &values.NotEmulatedError{What: "the cmdlet " + name + " (class " + class + ")"}
		}
		typ := cimOSType
		if name == "Get-WmiObject" {
			typ = wmiOSType
		}
		c.Emit(win32OS(c.I, typ))
		return nil
	}
}

// getComputerInfo is Get-ComputerInfo's OS and computer system properties.
func getComputerInfo(_ context.Context, c *engine.Call) error {
	os, host := c.I.Sys.OS, strings.ToUpper(c.I.Sys.Hostname)
	all := values.NewObject("Microsoft.PowerShell.Commands.ComputerInfo",
		"WindowsCurrentVersion", "6.3", "WindowsEditionId", os.EditionID, "WindowsInstallationType", "Server Core",
		"WindowsProductName", os.ProductName, "WindowsVersion", os.ReleaseID, "CsDNSHostName", c.I.Sys.Hostname, "CsName", host,
		"OsName", os.Caption(), "OsType", "WINNT", "OsVersion", strings.TrimSuffix(os.NTVersion(), ".0"),
		"OsBuildNumber", strconv.Itoa(os.Build), "OsArchitecture", "64-bit")
	if os.DisplayVersion != "" {
		all.Set("OSDisplayVersion", os.DisplayVersion)
	}
	if !c.Has("Property") {
		c.Emit(all)
		return nil
	}
	out := values.NewObject(all.TypeName)
	for _, pat := range values.ToList(c.Get("Property")) {
		for _, n := range all.Names {
			if dotnet.Wildcard(values.ToStr(pat), n, true) {
				out.Set(n, all.Props[strings.ToLower(n)])
			}
		}
	}
	c.Emit(out)
	return nil
}
