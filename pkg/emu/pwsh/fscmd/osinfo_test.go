package fscmd_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/nodeos"
	"github.com/winkube/winkube/pkg/emu/pwsh/pwshtest"
)

const currentVersion = `'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion'`

// What a container says about its OS comes from the node's facts: for
// each Windows Server release the node may run, the registry's
// CurrentVersion key, Win32_OperatingSystem, Get-ComputerInfo,
// [Environment]::OSVersion and $PSVersionTable agree with the node's
// build (no literal of a build in the emulation).
func TestOSFactsFollowTheNode(t *testing.T) {
	for _, release := range []string{"2019", "2022"} {
		t.Run(release, func(t *testing.T) {
			sys := pwshtest.Sys()
			sys.OS = nodeos.Of(nodeos.Release(release, "win-node"))
			os := sys.OS
			build, nt := strconv.Itoa(os.Build), strings.TrimSuffix(os.NTVersion(), ".0")
			for _, c := range []struct {
				script, want string
				pwsh7        bool
			}{
				{script: "$k = Get-ItemProperty " + currentVersion + "; $k.CurrentBuild; $k.CurrentBuildNumber; $k.UBR; $k.ProductName; $k.EditionID",
					want: lines(build, build, strconv.Itoa(os.UBR), os.ProductName, os.EditionID)},
				{script: "Get-ItemPropertyValue " + currentVersion + " -Name CurrentMajorVersionNumber, CurrentMinorVersionNumber",
					want: lines(strconv.Itoa(os.Major), strconv.Itoa(os.Minor))},
				{script: "$o = Get-CimInstance Win32_OperatingSystem; $o.Caption; $o.Version; $o.BuildNumber; $o.CSName; $o.OSArchitecture",
					want: lines(os.Caption(), nt, build, "WIN-POD", "64-bit")},
				{script: "(Get-WmiObject -Class Win32_OperatingSystem).BuildNumber", want: lines(build)},
				{script: "$c = Get-ComputerInfo; $c.WindowsProductName; $c.OsBuildNumber; $c.CsName; $c.OsVersion",
					want: lines(os.ProductName, build, "WIN-POD", nt)},
				{script: "(Get-ComputerInfo -Property Os*Number).OsBuildNumber; (Get-ComputerInfo -Property Os*Number).CsName -eq $null",
					want: lines(build, "True")},
				{script: "[Environment]::OSVersion.VersionString; [Environment]::OSVersion.Version.Build; \"$([Environment]::OSVersion.Version)\"",
					want: lines("Microsoft Windows NT "+os.NTVersion(), build, os.NTVersion())},
				{script: "\"$($PSVersionTable.PSVersion)\"; \"$($PSVersionTable.BuildVersion)\"; $PSVersionTable.PSVersion.Build",
					want: lines(os.PSVersion, os.Version(), build)},
				{script: "$PSVersionTable.OS; $PSVersionTable.Platform", pwsh7: true,
					want: lines("Microsoft Windows "+nt, "Win32NT")},
			} {
				run := pwshtest.Run
				if c.pwsh7 {
					run = pwshtest.Run7
				}
				if r := run(sys, c.script); r.Out != c.want || r.Err != "" {
					t.Errorf("%s:\ngot %q %q\nwant %q", c.script, r.Out, r.Err, c.want)
				}
			}
		})
	}
}

// A registry key or value that does not exist is PowerShell's error;
// classes other than Win32_OperatingSystem are not emulated and say
// so.
func TestOSInfoErrors(t *testing.T) {
	runAll(t, []tc{
		{script: `Test-Path HKLM:\SOFTWARE\Nope; Test-Path ` + currentVersion, out: lines("False", "True")},
		{script: `Get-ItemProperty HKLM:\SOFTWARE\Nope`, code: 1, errHas: `Cannot find path 'HKLM:\SOFTWARE\Nope' because it does not exist.`},
		{script: "Get-ItemPropertyValue " + currentVersion + " -Name Nope", code: 1, errHas: "Property Nope does not exist at path HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion."},
		{script: "Get-CimInstance -ClassName Win32_Service", code: 1, err: "winkube: PowerShell construct not emulated: the cmdlet Get-CimInstance (class Win32_Service)\r\n"},
	})
}

// The providers' drives (about_Providers): env:, variable:, function:,
// alias: read and write through the item cmdlets.
func TestProviderDrives(t *testing.T) {
	runAll(t, []tc{
		{script: "Test-Path env:COMPUTERNAME; Test-Path env:NOPE; (Get-Item env:USERNAME).Value", out: lines("True", "False", "ContainerUser")},
		{script: "Set-Item env:A 1; New-Item env:B -Value 2 | Out-Null; $env:A + $env:B; Remove-Item env:A; Test-Path env:A", out: lines("12", "False")},
		{script: "(Get-ChildItem env: | Sort-Object Name | Select-Object -First 1).Name", out: lines("COMPUTERNAME")},
		{script: "Get-Content env:COMPUTERNAME", out: lines("WIN-POD")},
		{script: "$v = 5; (Get-Item variable:v).Value; Test-Path variable:v; Test-Path variable:nope", out: lines("5", "True", "False")},
		{script: "function Hello { 'hi' }; Test-Path function:Hello; (Get-Item function:Hello).Name", out: lines("True", "Hello")},
		{script: "(Get-Item alias:gci).Definition; (Get-Item alias:where).Definition", out: lines("Get-ChildItem", "Where-Object")},
		// ? in a path is a wildcard: alias:? is every one-letter alias.
		{script: "(Get-Item alias:?).Definition", out: lines("ForEach-Object", "Where-Object")},
		{script: "Get-Item env:NOPE", code: 1, errHas: "Cannot find path 'NOPE' because it does not exist."},
		{script: "Get-ChildItem nope:", code: 1, errHas: "Cannot find drive. A drive with the name 'nope' does not exist."},
		{script: "(Get-PSProvider).Name -contains 'FileSystem'; (Get-PSDrive C).Root", out: lines("True", `C:\`)},
	})
}

// The registry key the emulation has, as the Registry provider shows
// it: Get-ItemProperty -Name adds the PS* properties in 5.1's list
// view; a missing value is a PSArgumentException; a location on the
// drive works with relative paths; what it does not model (listing
// keys) is said to be not emulated.
func TestRegistry(t *testing.T) {
	sys := container()
	want := lines("", "ProductName  : "+sys.OS.ProductName,
		`PSPath       : Microsoft.PowerShell.Core\Registry::HKEY_LOCAL_MACHINE\SOFTWARE\Microsoft\Windows NT\CurrentVersion`,
		`PSParentPath : Microsoft.PowerShell.Core\Registry::HKEY_LOCAL_MACHINE\SOFTWARE\Microsoft\Windows NT`,
		"PSChildName  : CurrentVersion", "PSDrive      : HKLM", `PSProvider   : Microsoft.PowerShell.Core\Registry`, "", "")
	if r := pwshtest.Run(sys, "Get-ItemProperty "+currentVersion+" -Name ProductName"); r.Out != want || r.Err != "" {
		t.Errorf("got\n%q\nwant\n%q", r.Out, want)
	}
	runAll(t, []tc{
		{script: "$p = Get-ItemProperty " + currentVersion + "; $p.PSChildName; $p.PSDrive", out: lines("CurrentVersion", "HKLM")},
		{script: `cd 'HKLM:\SOFTWARE\Microsoft'; (Get-Location).Path; Test-Path '.\Windows NT\CurrentVersion'; cd C:; (Get-Location).Path`,
			out: lines(`HKLM:\SOFTWARE\Microsoft`, "True", `C:\`)},
		{script: "Get-ItemPropertyValue " + currentVersion + " -Name Nope", code: 1,
			errHas: "FullyQualifiedErrorId : System.Management.Automation.PSArgumentException,Microsoft.PowerShell.Commands.GetItemPropertyValueCommand"},
		{script: `Get-ChildItem HKLM:\SOFTWARE\Microsoft`, code: 1, err: "winkube: PowerShell construct not emulated: Get-ChildItem on the HKLM: drive\r\n"},
	})
}

// PowerShell 7 has no Get-WmiObject (the WMI v1 cmdlets were removed);
// Get-CimInstance is the way there.
func TestNoWmiObjectInPwsh7(t *testing.T) {
	sys := container()
	r := pwshtest.Run7(sys, "(Get-CimInstance Win32_OperatingSystem).BuildNumber -gt 0; Get-WmiObject Win32_OperatingSystem")
	if r.Out != lines("True") || !strings.HasPrefix(r.Err, "Get-WmiObject: The term 'Get-WmiObject' is not recognized") || r.Code != 1 {
		t.Errorf("got (%d) %q %q", r.Code, r.Out, r.Err)
	}
}
