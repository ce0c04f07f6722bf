package pwsh

import (
	"context"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
)

// The chart's init container adds its rule as the kubelet passes the
// argv; the rule is then listed in the same filesystem (the node's, for a
// HostProcess container) and removed by display name.
func TestNetFirewallRules(t *testing.T) {
	sys := wintest.Sys(map[string]program.Main{"powershell": Main})
	ps := func(args ...string) (string, string, int) {
		return wintest.Run(context.Background(), sys, Main, "", append([]string{"powershell"}, args...)...)
	}
	out, errOut, code := ps("New-NetFirewallRule", "-DisplayName", "'windows-exporter'", "-Direction", "inbound", "-Profile", "Any", "-Action", "Allow", "-LocalPort", "9182", "-Protocol", "TCP")
	if code != 0 || errOut != "" {
		t.Fatalf("New-NetFirewallRule: %d %q %q", code, out, errOut)
	}
	for _, s := range []string{"DisplayName", "windows-exporter", "Inbound", "Allow", "The rule was parsed successfully from the store. (65536)"} {
		if !strings.Contains(out, s) {
			t.Errorf("New-NetFirewallRule output lacks %q:\n%s", s, out)
		}
	}
	out, _, _ = ps("-Command", "$r = Get-NetFirewallRule -DisplayName windows-*; $r.Direction; $r.Enabled; $r.Name.Length")
	if !strings.HasPrefix(out, "Inbound\r\nTrue\r\n38\r\n") {
		t.Errorf("Get-NetFirewallRule: %q", out)
	}
	_, errOut, _ = ps("-Command", "New-NetFirewallRule -DisplayName x -Direction sideways")
	if !strings.Contains(errOut, "Specify one of the following enumerator names and try again:") {
		t.Errorf("bad -Direction: %q", errOut)
	}
	ps("-Command", "Remove-NetFirewallRule -DisplayName windows-exporter")
	_, errOut, _ = ps("-Command", "Get-NetFirewallRule -DisplayName windows-exporter")
	if !strings.Contains(errOut, "No MSFT_NetFirewallRule objects found with property 'DisplayName' equal to 'windows-exporter'.") {
		t.Errorf("after Remove: %q", errOut)
	}
}
