package netcmd_test

import (
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/pwsh/pwshtest"
)

// New/Get/Remove-NetFirewallRule (NetSecurity, a CIM module): the rule
// objects' properties and defaults, their list view, lookups by name,
// display name and wildcard, and the CIM errors whose ids end with the
// command's name.
func TestFirewallRules(t *testing.T) {
	sys := pwshtest.Sys()
	r := pwshtest.Run(sys, "New-NetFirewallRule -DisplayName 'web' -Direction Inbound -LocalPort 80 -Protocol TCP -Action Allow")
	for _, line := range []string{"DisplayName           : web", "Enabled               : True", "Profile               : Any", "Direction             : Inbound",
		"Action                : Allow", "PrimaryStatus         : OK", "Status                : The rule was parsed successfully from the store. (65536)",
		"PolicyStoreSource     : PersistentStore"} {
		if !strings.Contains(r.Out, line+"\r\n") {
			t.Errorf("the new rule's view lacks %q:\n%s", line, r.Out)
		}
	}
	if !strings.HasPrefix(r.Out, "\r\nName                  : {") {
		t.Errorf("a rule made without -Name is named by a GUID: %q", r.Out)
	}
	for _, c := range []struct{ script, out string }{
		{"$r = Get-NetFirewallRule -DisplayName web; $r.DisplayName; $r.Action; $r.Enabled; $r.Direction", lines("web", "Allow", "True", "Inbound")},
		{"New-NetFirewallRule -Name fixed -DisplayName other -Direction Outbound -Action Block -Enabled False | Out-Null; (Get-NetFirewallRule fixed).Action; (Get-NetFirewallRule -Name fixed).Enabled", lines("Block", "False")},
		{"(Get-NetFirewallRule -DisplayName *e* | Measure-Object).Count; (Get-NetFirewallRule | Measure-Object).Count", lines("2", "2")},
		{"Get-NetFirewallRule -DisplayName nope*; 'no match, no error'", lines("no match, no error")},
		{"Remove-NetFirewallRule -DisplayName other; (Get-NetFirewallRule | Measure-Object).Count", lines("1")},
	} {
		if r := pwshtest.Run(sys, c.script); r.Out != c.out || r.Err != "" {
			t.Errorf("%s:\ngot %q %q\nwant %q", c.script, r.Out, r.Err, c.out)
		}
	}
	for _, c := range []struct{ script, err string }{
		{"Get-NetFirewallRule -DisplayName nope", "Get-NetFirewallRule : No MSFT_NetFirewallRule objects found with property 'DisplayName' equal to 'nope'.  Verify the value of the property and retry.\r\n" +
			"At line:1 char:1\r\n+ Get-NetFirewallRule -DisplayName nope\r\n+ ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\r\n" +
			"    + CategoryInfo          : ObjectNotFound: (nope:String) [Get-NetFirewallRule], CimJobException\r\n" +
			"    + FullyQualifiedErrorId : CmdletizationQuery_NotFound_DisplayName,Get-NetFirewallRule\r\n \r\n"},
		{"New-NetFirewallRule -Name fixed2 -DisplayName a | Out-Null; New-NetFirewallRule -Name fixed2 -DisplayName b",
			"FullyQualifiedErrorId : Windows System Error 183,New-NetFirewallRule"},
		{"Remove-NetFirewallRule -Name nope", "CmdletizationQuery_NotFound_Name,Remove-NetFirewallRule"},
		{"New-NetFirewallRule -DisplayName x -Action Maybe", "Cannot convert value \"Maybe\" to type \"Microsoft.PowerShell.Cmdletization.GeneratedTypes.NetSecurity.Action\". " +
			"Error: \"Unable to match the identifier name Maybe to a valid enumerator name. Specify one of the following enumerator names and try again:\r\nNotConfigured, Allow, Block\""},
	} {
		if r := pwshtest.Run(sys, c.script); r.Code != 1 || !strings.Contains(r.Err, c.err) {
			t.Errorf("%s:\n%q (%d)\nwant %q", c.script, r.Err, r.Code, c.err)
		}
	}
}
