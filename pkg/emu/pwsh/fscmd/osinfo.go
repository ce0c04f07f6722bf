package fscmd

import (
	"context"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// What PowerShell reads of the OS, all from the container's Sys.OS (the
// node's facts): [Environment]::OSVersion, the registry's CurrentVersion
// key, Win32_OperatingSystem and Get-ComputerInfo.

func init() {
	engine.Register("Get-ItemProperty", "gp", getItemProperty, engine.P("Path", 0, "LiteralPath", "PSPath"), engine.P("Name", 1))
	engine.Register("Get-ItemPropertyValue", "gpv", getItemPropertyValue, engine.P("Path", 0, "LiteralPath", "PSPath"), engine.P("Name", 1))
	engine.Register("Get-CimInstance", "gcim", getOSInstance("Get-CimInstance"), engine.P("ClassName", 0, "Class"), engine.N("Namespace"), engine.N("Filter"))
	engine.Register("Get-WmiObject", "gwmi", getOSInstance("Get-WmiObject"), engine.P("Class", 0, "ClassName"), engine.N("Namespace"), engine.N("Filter"))
	engine.Register("Get-ComputerInfo", "", getComputerInfo, engine.P("Property", 0))
}

// currentVersionKey is HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion.
const currentVersionKey = `HKEY_LOCAL_MACHINE\SOFTWARE\Microsoft\Windows NT\CurrentVersion`

// registryKey reads the one registry key the emulation has, named as a
// PowerShell path (HKLM:\..., Registry::HKEY_LOCAL_MACHINE\...); ok is
// false for any other path.
func registryKey(i *engine.Interp, path string) (*values.Object, bool) {
	p := strings.TrimRight(path, `\`)
	lower := strings.ToLower(p)
	lower = strings.TrimPrefix(lower, "microsoft.powershell.core\\")
	lower = strings.TrimPrefix(lower, "registry::")
	lower = strings.Replace(lower, "hklm:", "hkey_local_machine", 1)
	if lower != strings.ToLower(currentVersionKey) {
		return nil, false
	}
	os := i.Sys.OS
	o := values.NewObject("System.Management.Automation.PSCustomObject", "SystemRoot", `C:\Windows`, "BuildBranch", "",
		"CurrentBuild", strconv.Itoa(os.Build), "CurrentBuildNumber", strconv.Itoa(os.Build),
		"CurrentMajorVersionNumber", os.Major, "CurrentMinorVersionNumber", os.Minor, "CurrentType", "Multiprocessor Free",
		"CurrentVersion", "6.3", "EditionID", os.EditionID, "InstallationType", "Server Core", "ProductName", os.ProductName,
		"ReleaseId", os.ReleaseID, "UBR", os.UBR)
	if os.DisplayVersion != "" {
		o.Set("DisplayVersion", os.DisplayVersion)
	}
	parent, child := `Microsoft.PowerShell.Core\Registry::HKEY_LOCAL_MACHINE\SOFTWARE\Microsoft\Windows NT`, "CurrentVersion"
	for _, kv := range [][2]string{{"PSPath", parent + `\` + child}, {"PSParentPath", parent}, {"PSChildName", child},
		{"PSDrive", "HKLM"}, {"PSProvider", `Microsoft.PowerShell.Core\Registry`}} {
		o.Set(kv[0], kv[1])
	}
	return o, true
}

func getItemProperty(_ context.Context, c *engine.Call) error {
	for _, path := range c.Items("Path") {
		key, err := key(c, values.ToStr(path))
		if err != nil {
			return err
		} else if key == nil {
			continue
		}
		names := names(c)
		if len(names) == 0 {
			c.Emit(key)
			continue
		}
		o := values.NewObject(key.TypeName)
		for _, name := range append(names, "PSPath", "PSParentPath", "PSChildName", "PSDrive", "PSProvider") {
			if v, ok := key.Get(name); ok {
				o.Set(canonicalName(key, name), v)
			} else if err := noProperty(c, name, values.ToStr(path)); err != nil {
				return err
			}
		}
		c.Emit(o)
	}
	return nil
}

func getItemPropertyValue(_ context.Context, c *engine.Call) error {
	for _, path := range c.Items("Path") {
		key, err := key(c, values.ToStr(path))
		if err != nil {
			return err
		} else if key == nil {
			continue
		}
		for _, name := range names(c) {
			if v, ok := key.Get(name); ok {
				c.Emit(v)
			} else if err := noProperty(c, name, values.ToStr(path)); err != nil {
				return err
			}
		}
	}
	return nil
}

// key is the registry key a path names; a file path is not emulated, a
// missing key is PathNotFound.
func key(c *engine.Call, path string) (*values.Object, error) {
	if pp, ok := providerPath(c.I, path); ok && pp.drv != nil && pp.drv.provider == "Registry" {
		path = pp.drv.name + `:\` + pp.rest // relative to a location on HKLM:
	}
	if key, ok := registryKey(c.I, path); ok {
		return key, nil
	}
	if l := strings.ToLower(path); strings.HasPrefix(l, "hk") || strings.HasPrefix(l, "registry::") {
		return nil, c.NotFound(path) // nil when the error is silenced
	}
	return nil, &values.NotEmulatedError{What: c.Cl.Name + " " + path}
}

func names(c *engine.Call) []string {
	var out []string
	for _, v := range values.ToList(c.Get("Name")) {
		out = append(out, values.ToStr(v))
	}
	return out
}

func noProperty(c *engine.Call, name, path string) error {
	return c.Fail("Property "+name+" does not exist at path "+registryPath(path)+".", "InvalidArgument", name,
		"PSArgumentException", "System.Management.Automation.PSArgumentException")
}

// registryPath is a path as the registry provider words it in errors.
func registryPath(path string) string {
	if strings.HasPrefix(strings.ToLower(path), "hklm:") {
		return "HKEY_LOCAL_MACHINE" + path[len("hklm:"):]
	}
	return strings.TrimPrefix(path, "Registry::")
}

// canonicalName is a property's name as the object spells it.
func canonicalName(o *values.Object, name string) string {
	for _, n := range o.Names {
		if strings.EqualFold(n, name) {
			return n
		}
	}
	return name
}
