package pwsh

import (
	"strconv"
	"testing"

	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
)

func TestProviders(t *testing.T) {
	sys := newSys()
	os := sys.OS
	for _, f := range []string{`C:\data\a.txt`, `C:\data\sub\b.txt`, `C:\data\sub\c.log`} {
		sys.FS.(*wintest.FS).Put(f, "x")
	}
	table := func(rows ...string) string {
		s := "\r\nName                           Value\r\n----                           -----\r\n"
		for _, r := range rows {
			s += r + "\r\n"
		}
		return s + "\r\n\r\n"
	}
	for _, tc := range []struct{ script, out, errOut string }{
		{script: "Get-ChildItem env:", out: table("COMPUTERNAME                   WIN-POD", `PATH                           C:\Windows\system32;C:\Windows`, "USERNAME                       ContainerUser")},
		{script: "dir Env:\\U*", out: table("USERNAME                       ContainerUser")},
		{script: "Get-Item env:PATH", out: table(`PATH                           C:\Windows\system32;C:\Windows`)},
		{script: "(Get-Item env:PATH).Value; Get-Content env:USERNAME", out: "C:\\Windows\\system32;C:\\Windows\r\nContainerUser\r\n"},
		{script: "Test-Path env:PATH; Test-Path env:NOPE; Test-Path env:", out: "True\r\nFalse\r\nTrue\r\n"},
		{script: "Set-Item env:FOO bar; $env:FOO; New-Item -Path env: -Name BAZ -Value q | Out-Null; $env:BAZ; Remove-Item env:FOO; Test-Path env:FOO", out: "bar\r\nq\r\nFalse\r\n"},
		{script: "Set-Location env:; Get-Location | % Path; (Get-ChildItem).Count; cd C:\\data; $pwd.Path", out: "Env:\\\r\n3\r\nC:\\data\r\n"},
		{script: "Get-Item env:NOPE", errOut: "Get-Item : Cannot find path 'NOPE' because it does not exist.\r\nAt line:1 char:1\r\n+ Get-Item env:NOPE\r\n+ ~~~~~~~~~~~~~~~~~\r\n" +
			"    + CategoryInfo          : ObjectNotFound: (NOPE:String) [Get-Item], ItemNotFoundException\r\n" +
			"    + FullyQualifiedErrorId : PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand\r\n \r\n"},
		{script: "Get-ChildItem foo:", errOut: "Get-ChildItem : Cannot find drive. A drive with the name 'foo' does not exist.\r\nAt line:1 char:1\r\n+ Get-ChildItem foo:\r\n+ ~~~~~~~~~~~~~~~~~~\r\n" +
			"    + CategoryInfo          : ObjectNotFound: (foo:String) [Get-ChildItem], DriveNotFoundException\r\n" +
			"    + FullyQualifiedErrorId : DriveNotFound,Microsoft.PowerShell.Commands.GetChildItemCommand\r\n \r\n"},
		{script: "Get-PSDrive", out: "\r\n" +
			"Name           Used (GB)     Free (GB) Provider      Root                                                CurrentLocation\r\n" +
			"----           ---------     --------- --------      ----                                                ---------------\r\n" +
			"Alias                                  Alias\r\n" +
			"C                                      FileSystem    C:\\\r\n" +
			"Cert                                   Certificate   \\\r\n" +
			"Env                                    Environment\r\n" +
			"Function                               Function\r\n" +
			"HKCU                                   Registry      HKEY_CURRENT_USER\r\n" +
			"HKLM                                   Registry      HKEY_LOCAL_MACHINE\r\n" +
			"Variable                               Variable\r\n" +
			"WSMan                                  WSMan\r\n\r\n\r\n"},
		{script: "Get-PSDrive -PSProvider Registry | % Name", out: "HKCU\r\nHKLM\r\n"},
		{script: "Get-ChildItem alias:% ; Get-Item alias:where", out: "\r\nCommandType     Name                                               Version    Source\r\n" +
			"-----------     ----                                               -------    ------\r\n" +
			"Alias           % -> ForEach-Object\r\nAlias           where -> Where-Object\r\n\r\n\r\n"},
		{script: "function f { 1 }; (Get-Item function:f).Name; $x = 3; (Get-Item variable:x).Value; Test-Path variable:nope", out: "f\r\n3\r\nFalse\r\n"},
		{script: `(Get-ItemProperty 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion').CurrentBuild`, out: strconv.Itoa(os.Build) + "\r\n"},
		{script: `Get-ItemPropertyValue 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion' -Name UBR, ProductName, DisplayVersion`,
			out: strconv.Itoa(os.UBR) + "\r\n" + os.ProductName + "\r\n" + os.DisplayVersion + "\r\n"},
		{script: `cd 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion'; pwd | % Path; Get-ItemPropertyValue . CurrentBuildNumber; Test-Path HKLM:\SOFTWARE\Nope`,
			out: `HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion` + "\r\n" + strconv.Itoa(os.Build) + "\r\nFalse\r\n"},
		{script: "1..5 | ? { $_ -gt 3 }; ? { $true }; 1..2 | % { $_ * 10 }", out: "4\r\n5\r\n10\r\n20\r\n"},
		{script: `Get-ChildItem -Path C:\ -Recurse -Filter *.txt -Name`, out: "data\\a.txt\r\ndata\\sub\\b.txt\r\n"},
		{script: `Get-ChildItem -Path C:\ -Recurse -Filter *.txt | % FullName`, out: "C:\\data\\a.txt\r\nC:\\data\\sub\\b.txt\r\n"},
	} {
		t.Run(tc.script, func(t *testing.T) {
			out, errOut, _ := ps(t, sys, "-NoProfile", "-Command", tc.script)
			if out != tc.out || errOut != tc.errOut {
				t.Errorf("got\n%q\n%q\nwant\n%q\n%q", out, errOut, tc.out, tc.errOut)
			}
		})
	}
}
