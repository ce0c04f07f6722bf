package netcmd

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/dotnet"
	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// The NetSecurity module's firewall rules. Rules live in the container's
// filesystem under the registry key's name: for a HostProcess container
// that is the node's disk, so every HostProcess container of a node sees
// one firewall, as on Windows; a process-isolated container keeps its own.
// The rules are kept, not enforced: the emulated network does not filter
// on them.

func init() {
	engine.Register("New-NetFirewallRule", "", newNetFirewallRule,
		engine.N("DisplayName"), engine.N("Name", "ID"), engine.N("Description"), engine.N("Group"), engine.N("Enabled"), engine.N("Profile"),
		engine.N("Direction"), engine.N("Action"), engine.N("LocalPort"), engine.N("RemotePort"), engine.N("Protocol"),
		engine.N("LocalAddress"), engine.N("RemoteAddress"), engine.N("Program"))
	engine.Register("Get-NetFirewallRule", "", getNetFirewallRule, engine.P("Name", 0, "ID"), engine.N("DisplayName"))
	engine.Register("Remove-NetFirewallRule", "", removeNetFirewallRule, engine.P("Name", 0, "ID"), engine.N("DisplayName"))
}

// firewallStore is where the rules are kept (the policy store's key is
// HKLM\SYSTEM\CurrentControlSet\Services\SharedAccess\Parameters\FirewallPolicy\FirewallRules).
const firewallStore = `C:\Windows\System32\config\FirewallRules`

type fwRule struct {
	Name, DisplayName, Description, Group string
	Enabled, Profile, Direction, Action   string
	LocalPort, RemotePort, Protocol       string
	LocalAddress, RemoteAddress, Program  string
}

// fwEnums are the enumerations the parameters bind to, in the order the
// binder lists them.
var fwEnums = map[string][]string{
	"Direction": {"Inbound", "Outbound"},
	"Action":    {"NotConfigured", "Allow", "Block"},
	"Profile":   {"Any", "Domain", "Private", "Public", "NotApplicable"},
	"Enabled":   {"True", "False"},
}

func newNetFirewallRule(_ context.Context, c *engine.Call) error {
	if !c.Has("DisplayName") {
		return c.Fail("Cannot process command because of one or more missing mandatory parameters: DisplayName.",
			"InvalidArgument", "", "ParameterBindingException", "MissingMandatoryParameter")
	}
	r := fwRule{DisplayName: c.Str("DisplayName"), Name: c.Str("Name"), Description: c.Str("Description"), Group: c.Str("Group"),
		Enabled: "True", Profile: "Any", Direction: "Inbound", Action: "Allow",
		LocalPort: "Any", RemotePort: "Any", Protocol: "Any", LocalAddress: "Any", RemoteAddress: "Any", Program: "Any"}
	for _, f := range []struct {
		param string
		to    *string
	}{{"Enabled", &r.Enabled}, {"Profile", &r.Profile}, {"Direction", &r.Direction}, {"Action", &r.Action}} {
		if !c.Has(f.param) {
			continue
		}
		v, ok := enumValue(f.param, c.Str(f.param))
		if !ok {
			return c.Fail(fmt.Sprintf("Cannot process argument transformation on parameter '%s'. Cannot convert value \"%s\" to type \"Microsoft.PowerShell.Cmdletization.GeneratedTypes.NetSecurity.%s\". Error: \"Unable to match the identifier name %s to a valid enumerator name. Specify one of the following enumerator names and try again:\r\n%s\"",
				f.param, c.Str(f.param), f.param, c.Str(f.param), strings.Join(fwEnums[f.param], ", ")),
				"InvalidData", "", "ParameterBindingArgumentTransformationException", "ParameterArgumentTransformationError")
		}
		*f.to = v
	}
	for _, f := range []struct {
		param string
		to    *string
	}{{"LocalPort", &r.LocalPort}, {"RemotePort", &r.RemotePort}, {"Protocol", &r.Protocol}, {"LocalAddress", &r.LocalAddress}, {"RemoteAddress", &r.RemoteAddress}, {"Program", &r.Program}} {
		if c.Has(f.param) {
			var parts []string
			for _, v := range values.ToList(c.Get(f.param)) {
				parts = append(parts, values.ToStr(v))
			}
			*f.to = strings.Join(parts, ",")
		}
	}
	if r.Protocol != "Any" && (r.LocalPort != "Any" || r.RemotePort != "Any") {
		r.Protocol = strings.ToUpper(r.Protocol)
	}
	rules := loadRules(c)
	if r.Name == "" {
		r.Name = newGUID()
	}
	for _, o := range rules {
		if strings.EqualFold(o.Name, r.Name) {
			return c.Fail("Cannot create a file when that file already exists.", "ResourceExists", "MSFT_NetFirewallRule", "CimException", "Windows System Error 183")
		}
	}
	rules = append(rules, r)
	if err := saveRules(c, rules); err != nil {
		return err
	}
	c.Emit(ruleObject(r))
	return nil
}

func enumValue(param, v string) (string, bool) {
	var out []string
	for _, part := range strings.Split(v, ",") {
		found := false
		for _, e := range fwEnums[param] {
			if strings.EqualFold(strings.TrimSpace(part), e) {
				out, found = append(out, e), true
			}
		}
		if !found {
			return "", false
		}
	}
	return strings.Join(out, ", "), true
}

func getNetFirewallRule(_ context.Context, c *engine.Call) error {
	rules, ok := selectRules(c, "Get")
	if ok {
		for _, r := range rules {
			c.Emit(ruleObject(r))
		}
	}
	return nil
}

func removeNetFirewallRule(_ context.Context, c *engine.Call) error {
	chosen, ok := selectRules(c, "Remove")
	if !ok || len(chosen) == 0 {
		return nil
	}
	var keep []fwRule
	for _, r := range loadRules(c) {
		drop := false
		for _, d := range chosen {
			drop = drop || d.Name == r.Name
		}
		if !drop {
			keep = append(keep, r)
		}
	}
	return saveRules(c, keep)
}

// selectRules are the rules -Name or -DisplayName match (wildcards
// allowed); a pattern with no wildcard that matches none is an error.
func selectRules(c *engine.Call, verb string) ([]fwRule, bool) {
	rules := loadRules(c)
	prop, pattern := "", ""
	switch {
	case c.Has("Name"):
		prop, pattern = "Name", c.Str("Name")
	case c.Has("DisplayName"):
		prop, pattern = "DisplayName", c.Str("DisplayName")
	default:
		return rules, true
	}
	var out []fwRule
	for _, r := range rules {
		v := r.Name
		if prop == "DisplayName" {
			v = r.DisplayName
		}
		if dotnet.Wildcard(pattern, v, true) {
			out = append(out, r)
		}
	}
	if len(out) == 0 && !strings.ContainsAny(pattern, "*?[") {
		_ = c.Fail(fmt.Sprintf("No MSFT_NetFirewallRule objects found with property '%s' equal to '%s'.  Verify the value of the property and retry.", prop, pattern),
			"ObjectNotFound", pattern, "CimJobException", "CmdletizationQuery_NotFound_"+prop)
		return nil, false
	}
	return out, true
}

// ruleObject is the MSFT_NetFirewallRule instance the cmdlets output.
func ruleObject(r fwRule) *values.Object {
	return values.NewObject("Microsoft.Management.Infrastructure.CimInstance#root/standardcimv2/MSFT_NetFirewallRule",
		"Name", r.Name, "DisplayName", r.DisplayName, "Description", r.Description, "DisplayGroup", r.Group, "Group", r.Group,
		"Enabled", r.Enabled, "Profile", r.Profile, "Platform", "{}", "Direction", r.Direction, "Action", r.Action,
		"EdgeTraversalPolicy", "Block", "LooseSourceMapping", "False", "LocalOnlyMapping", "False", "Owner", "",
		"PrimaryStatus", "OK", "Status", "The rule was parsed successfully from the store. (65536)",
		"EnforcementStatus", "NotApplicable", "PolicyStoreSource", "PersistentStore", "PolicyStoreSourceType", "Local")
}

func loadRules(c *engine.Call) []fwRule {
	fs := c.I.Sys.FS
	f, err := fs.OpenFile(firewallStore, os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, _ := io.ReadAll(f)
	var rules []fwRule
	_ = json.Unmarshal(data, &rules)
	return rules
}

func saveRules(c *engine.Call, rules []fwRule) error {
	fs := c.I.Sys.FS
	data, _ := json.Marshal(rules)
	_ = fs.MkdirAll(`C:\Windows\System32\config`, 0o755)
	f, err := fs.OpenFile(firewallStore, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return c.Fail("Access is denied.", "PermissionDenied", "MSFT_NetFirewallRule", "CimException", "Windows System Error 5")
	}
	defer f.Close()
	_, err = f.Write(data)
	return err
}

// newGUID names a rule created without -Name, as Windows does: a GUID
// in braces.
func newGUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("{%x-%x-%x-%x-%x}", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
