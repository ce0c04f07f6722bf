package fscmd

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/dotnet"
	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/format"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// PowerShell's providers beside the FileSystem: the drives Get-PSDrive
// lists, and the item cmdlets (Get-ChildItem, Get-Item, Test-Path,
// Set-Item, New-Item, Remove-Item, Get-Content, Set-Location) on Env:,
// Variable:, Function: and Alias:, which are views of the session's own
// tables, and on HKLM: as far as the emulated registry goes (the one key
// of osinfo.go). A path names a drive by its "Name:" prefix, or by the
// current location once Set-Location moved onto one.

// drive is a PowerShell drive of Windows PowerShell 5.1's default
// session, in Get-PSDrive's order.
type drive struct{ name, provider, root string }

var drives = []drive{
	{"Alias", "Alias", ""},
	{"C", "FileSystem", `C:\`},
	{"Cert", "Certificate", `\`},
	{"Env", "Environment", ""},
	{"Function", "Function", ""},
	{"HKCU", "Registry", "HKEY_CURRENT_USER"},
	{"HKLM", "Registry", "HKEY_LOCAL_MACHINE"},
	{"Variable", "Variable", ""},
	{"WSMan", "WSMan", ""},
}

// providerModule is the module that holds each provider, as PSProvider
// properties and PSPath name it.
var providerModule = map[string]string{
	"Alias": "Microsoft.PowerShell.Core", "Environment": "Microsoft.PowerShell.Core", "FileSystem": "Microsoft.PowerShell.Core",
	"Function": "Microsoft.PowerShell.Core", "Registry": "Microsoft.PowerShell.Core", "Variable": "Microsoft.PowerShell.Core",
	"Certificate": "Microsoft.PowerShell.Security", "WSMan": "Microsoft.WSMan.Management",
}

const (
	dictEntryType  = "System.Collections.DictionaryEntry"
	psVariableType = "System.Management.Automation.PSVariable"
	functionType   = "System.Management.Automation.FunctionInfo"
	aliasType      = "System.Management.Automation.AliasInfo"
	psDriveType    = "System.Management.Automation.PSDriveInfo"
)

// provPath is a path on a drive other than the FileSystem's: the drive
// and the path under its root, without leading separators.
type provPath struct {
	drv  *drive
	rest string
	bad  string // a drive name no drive has
}

func findDrive(name string) *drive {
	for k := range drives {
		if strings.EqualFold(drives[k].name, name) {
			return &drives[k]
		}
	}
	return nil
}

// providerPath tells whether a path is on a provider drive (or names a
// drive that does not exist); FileSystem paths give ok false.
func providerPath(i *engine.Interp, path string) (provPath, bool) {
	if k := strings.Index(path, ":"); k > 0 && !strings.ContainsAny(path[:k], `\/`) && !strings.HasPrefix(path[k:], "::") {
		name := path[:k]
		d := findDrive(name)
		switch {
		case d == nil:
			return provPath{bad: name}, true
		case d.provider == "FileSystem":
			return provPath{}, false
		}
		return provPath{drv: d, rest: strings.Trim(path[k+1:], `\/`)}, true
	}
	if i.Loc == "" || strings.HasPrefix(path, `\\`) {
		return provPath{}, false
	}
	d := findDrive(strings.TrimSuffix(i.Loc[:strings.Index(i.Loc, ":")], ":"))
	rest := strings.Trim(path, `\/`)
	if rest == "." {
		rest = ""
	}
	// A leading .\ names the location itself.
	rest = strings.TrimPrefix(strings.TrimPrefix(rest, `.\`), "./")
	if cur := strings.Trim(i.Loc[strings.Index(i.Loc, ":")+1:], `\`); cur != "" && !strings.HasPrefix(path, `\`) && rest != "" {
		rest = cur + `\` + rest
	} else if rest == "" && !strings.HasPrefix(path, `\`) {
		rest = cur
	}
	return provPath{drv: d, rest: rest}, true
}

// providerCmdlets are the item cmdlets that reach the providers: each
// takes the paths that name a provider drive and leaves the rest to the
// FileSystem.
var providerCmdlets = map[string]func(context.Context, *engine.Call, provPath, any) error{
	"get-childitem": provGetChildItem,
	"get-item":      provGetItem,
	"test-path":     provTestPath,
	"get-content":   provGetContent,
	"new-item":      provNewItem,
	"remove-item":   provRemoveItem,
	"set-location":  provSetLocation,
}

func init() {
	for name, h := range providerCmdlets {
		cl := engine.Cmdlets[name]
		if cl == nil {
			panic("pwsh: no cmdlet " + name + " for the providers") // init order: cmdlets_fs.go registers first
		}
		fsRun, h := cl.Run, h
		cl.Run = func(ctx context.Context, c *engine.Call) error { return dispatch(c, ctx, fsRun, h) }
	}
	// Out-Default's views of the provider items and drives.
	for _, t := range []string{dictEntryType, psVariableType, functionType, aliasType, psDriveType, "System.Management.Automation.ProviderInfo"} {
		format.RegisterFormat(t, func(f *format.Formatter, o *values.Object) { providerRow(f, o) })
	}
	engine.Register("Set-Item", "si", setItem, engine.P("Path", 0, "LiteralPath", "PSPath"), engine.P("Value", 1), engine.Sw("Force"), engine.Sw("PassThru"))
	engine.Register("Get-PSDrive", "gdr", getPSDrive, engine.P("Name", 0), engine.N("PSProvider"), engine.N("Scope"))
	engine.Register("Get-PSProvider", "", getPSProvider, engine.P("PSProvider", 0))
	cl := engine.Cmdlets["get-location"]
	cl.Run = func(_ context.Context, c *engine.Call) error {
		c.Emit(values.NewObject("System.Management.Automation.PathInfo", "Path", c.I.Location()))
		return nil
	}
}

// dispatch runs a cmdlet's provider paths here and its FileSystem paths
// (and a call with no path, unless the location is on a provider) on
// the FileSystem.
func dispatch(c *engine.Call, ctx context.Context, fsRun func(context.Context, *engine.Call) error, h func(context.Context, *engine.Call, provPath, any) error) error {
	if c.Cl.Name == "Set-Location" && !c.Has("Path") && c.I.Loc == "" {
		return fsRun(ctx, c)
	}
	names := c.Items("Path")
	if len(names) == 0 && c.I.Loc != "" && c.Cl.Name != "Set-Location" {
		names = []any{"."}
	}
	var fsNames []any
	for _, n := range names {
		pp, ok := providerPath(c.I, values.ToStr(n))
		if !ok {
			fsNames = append(fsNames, n)
			continue
		}
		if pp.bad != "" {
			if err := c.Fail("Cannot find drive. A drive with the name '"+pp.bad+"' does not exist.", "ObjectNotFound", pp.bad,
				"DriveNotFoundException", "DriveNotFound"); err != nil {
				return err
			}
			continue
		}
		if err := h(ctx, c, pp, n); err != nil {
			return err
		}
	}
	if len(fsNames) == 0 && len(names) > 0 {
		return nil
	}
	if len(names) > 0 {
		c.Named["path"] = values.FromList(fsNames)
	}
	return fsRun(ctx, c)
}

// providerItems are what a drive holds, as its provider returns them.
func providerItems(i *engine.Interp, d *drive) ([]*values.Object, bool) {
	var out []*values.Object
	switch d.provider {
	case "Environment":
		for _, kv := range i.Env {
			name, value, _ := strings.Cut(kv, "=")
			if name != "" {
				out = append(out, envEntry(i, name, value))
			}
		}
	case "Variable":
		seen := map[string]bool{}
		for k := len(i.Scopes) - 1; k >= 0; k-- {
			for name := range i.Scopes[k] {
				if !seen[name] {
					seen[name] = true
					v, _ := i.GetVar(name)
					out = append(out, variableItem(name, v))
				}
			}
		}
		for _, name := range []string{"?", "ErrorActionPreference", "false", "HOME", "LASTEXITCODE", "null", "PID", "PSVersionTable", "PWD", "true"} {
			if !seen[strings.ToLower(name)] {
				v, _ := i.GetVar(name)
				out = append(out, variableItem(name, v))
			}
		}
	case "Function":
		for _, f := range i.Funcs {
			out = append(out, functionItem(f.Name))
		}
	case "Alias":
		for a := range engine.Aliases {
			out = append(out, aliasItem(a))
		}
	default:
		return nil, false
	}
	// SessionStateProviderBase and the Environment provider sort by name,
	// ignoring case.
	sort.SliceStable(out, func(a, b int) bool {
		return strings.ToLower(values.ToStr(dotnet.Property(out[a], "Name"))) < strings.ToLower(values.ToStr(dotnet.Property(out[b], "Name")))
	})
	return out, true
}

func withPS(o *values.Object, d *drive, name string) *values.Object {
	prov := providerModule[d.provider] + `\` + d.provider
	o.Set("PSPath", prov+"::"+name)
	o.Set("PSDrive", d.name)
	o.Set("PSProvider", prov)
	o.Set("PSIsContainer", false)
	return o
}

func envEntry(i *engine.Interp, name, value string) *values.Object {
	return withPS(values.NewObject(dictEntryType, "Name", name, "Key", name, "Value", value), findDrive("Env"), name)
}

func variableItem(name string, v any) *values.Object {
	return withPS(values.NewObject(psVariableType, "Name", name, "Value", v, "Description", "", "Options", "None"), findDrive("Variable"), name)
}

func functionItem(name string) *values.Object {
	return withPS(values.NewObject(functionType, "CommandType", "Function", "Name", name, "Version", "", "Source", ""), findDrive("Function"), name)
}

func aliasItem(alias string) *values.Object {
	target := engine.Cmdlets[engine.Aliases[alias]].Name
	return withPS(values.NewObject(aliasType, "CommandType", "Alias", "Name", alias+" -> "+target, "Version", "", "Source", "",
		"DisplayName", alias+" -> "+target, "Definition", target, "ReferencedCommand", target), findDrive("Alias"), alias)
}

// Lookup finds the items a provider path names: the drive's items for
// its root, or those whose name matches the path (a wildcard allowed).
func Lookup(c *engine.Call, pp provPath) ([]*values.Object, error) {
	items, ok := providerItems(c.I, pp.drv)
	if !ok {
		return nil, &values.NotEmulatedError{What: c.Cl.Name + " on the " + pp.drv.name + ": drive"}
	}
	if pp.rest == "" {
		return items, nil
	}
	var out []*values.Object
	for _, it := range items {
		key := values.ToStr(dotnet.Property(it, "Name"))
		if pp.drv.provider == "Alias" {
			key = values.ToStr(dotnet.Property(it, "PSPath"))
			key = key[strings.Index(key, "::")+2:]
		}
		if strings.EqualFold(key, pp.rest) || strings.ContainsAny(pp.rest, "*?[") && dotnet.Wildcard(pp.rest, key, true) {
			out = append(out, it)
		}
	}
	return out, nil
}

// missing is a provider's "Cannot find path": the path under the drive.
func missing(c *engine.Call, pp provPath) error {
	return c.Fail("Cannot find path '"+pp.rest+"' because it does not exist.", "ObjectNotFound", pp.rest, "ItemNotFoundException", "PathNotFound")
}

func registry(c *engine.Call, pp provPath) bool { return pp.drv.provider == "Registry" }

// registryHas tells whether the emulated registry has a key: the
// CurrentVersion key and the keys above it.
func registryHas(pp provPath) bool {
	if !strings.EqualFold(pp.drv.name, "HKLM") {
		return false
	}
	want := strings.ToLower(strings.TrimPrefix(currentVersionKey, `HKEY_LOCAL_MACHINE\`))
	rest := strings.ToLower(pp.rest)
	return rest == "" || rest == want || strings.HasPrefix(want, rest+`\`)
}

func provGetChildItem(_ context.Context, c *engine.Call, pp provPath, _ any) error {
	if registry(c, pp) || pp.drv.provider != "Environment" && pp.drv.provider != "Variable" && pp.drv.provider != "Function" && pp.drv.provider != "Alias" {
		return &values.NotEmulatedError{What: "Get-ChildItem on the " + pp.drv.name + ": drive"}
	}
	items, err := Lookup(c, pp)
	if err != nil {
		return err
	}
	if len(items) == 0 && !strings.ContainsAny(pp.rest, "*?[") {
		return missing(c, pp)
	}
	for _, it := range items {
		if c.Flag("Name") {
			c.Emit(values.ToStr(dotnet.Property(it, "PSPath"))[strings.Index(values.ToStr(dotnet.Property(it, "PSPath")), "::")+2:])
		} else {
			c.Emit(it)
		}
	}
	return nil
}

func provGetItem(_ context.Context, c *engine.Call, pp provPath, _ any) error {
	if registry(c, pp) || pp.drv.provider == "Certificate" || pp.drv.provider == "WSMan" {
		return &values.NotEmulatedError{What: "Get-Item on the " + pp.drv.name + ": drive"}
	}
	if pp.rest == "" { // the drive's root is a container
		return &values.NotEmulatedError{What: "Get-Item of the " + pp.drv.name + ": drive's root"}
	}
	items, err := Lookup(c, pp)
	if err != nil {
		return err
	}
	if len(items) == 0 && !strings.ContainsAny(pp.rest, "*?[") {
		return missing(c, pp)
	}
	for _, it := range items {
		c.Emit(it)
	}
	return nil
}

func provTestPath(_ context.Context, c *engine.Call, pp provPath, _ any) error {
	if registry(c, pp) {
		c.Emit(registryHas(pp) && !strings.EqualFold(c.Str("PathType"), "Leaf"))
		return nil
	}
	if _, ok := providerItems(c.I, pp.drv); !ok {
		return &values.NotEmulatedError{What: "Test-Path on the " + pp.drv.name + ": drive"}
	}
	if pp.rest == "" {
		c.Emit(!strings.EqualFold(c.Str("PathType"), "Leaf"))
		return nil
	}
	found, err := Lookup(c, pp)
	if err != nil {
		return err
	}
	c.Emit(len(found) > 0 && !strings.EqualFold(c.Str("PathType"), "Container"))
	return nil
}

// provGetContent is Get-Content of an item: its value.
func provGetContent(_ context.Context, c *engine.Call, pp provPath, _ any) error {
	if pp.drv.provider != "Environment" && pp.drv.provider != "Variable" {
		return &values.NotEmulatedError{What: "Get-Content on the " + pp.drv.name + ": drive"}
	}
	items, err := Lookup(c, pp)
	if err != nil {
		return err
	}
	if len(items) == 0 || pp.rest == "" {
		return missing(c, pp)
	}
	for _, it := range items {
		c.Emit(dotnet.Property(it, "Value"))
	}
	return nil
}

// settable is the part of a provider path Set-Item, New-Item and
// Remove-Item change: a variable of the environment or the session.
func settable(c *engine.Call, pp provPath) error {
	if pp.drv.provider != "Environment" && pp.drv.provider != "Variable" {
		return &values.NotEmulatedError{What: c.Cl.Name + " on the " + pp.drv.name + ": drive"}
	}
	return nil
}

func setValue(c *engine.Call, pp provPath, name string, v any) error {
	if pp.drv.provider == "Environment" {
		c.I.Setenv(name, values.ToStr(v))
		return nil
	}
	return c.I.SetVar(name, v)
}

func setItem(ctx context.Context, c *engine.Call) error {
	for _, n := range c.Items("Path") {
		pp, ok := providerPath(c.I, values.ToStr(n))
		switch {
		case !ok:
			return &values.NotEmulatedError{What: "Set-Item on the FileSystem"}
		case pp.bad != "":
			if err := c.Fail("Cannot find drive. A drive with the name '"+pp.bad+"' does not exist.", "ObjectNotFound", pp.bad,
				"DriveNotFoundException", "DriveNotFound"); err != nil {
				return err
			}
			continue
		}
		if err := settable(c, pp); err != nil {
			return err
		}
		if err := setValue(c, pp, pp.rest, c.Get("Value")); err != nil {
			return err
		}
		if c.Flag("PassThru") {
			items, _ := Lookup(c, pp)
			for _, it := range items {
				c.Emit(it)
			}
		}
	}
	return nil
}

func provNewItem(_ context.Context, c *engine.Call, pp provPath, _ any) error {
	if err := settable(c, pp); err != nil {
		return err
	}
	name := pp.rest
	if c.Has("Name") {
		name = strings.Trim(strings.TrimPrefix(name+`\`+c.Str("Name"), `\`), `\`)
	}
	sub := provPath{drv: pp.drv, rest: name}
	if found, _ := Lookup(c, sub); len(found) > 0 && !c.Flag("Force") {
		return &values.NotEmulatedError{What: "New-Item of an existing " + pp.drv.name + ": item"}
	}
	if err := setValue(c, sub, name, c.Get("Value")); err != nil {
		return err
	}
	items, _ := Lookup(c, sub)
	for _, it := range items {
		c.Emit(it)
	}
	return nil
}

func provRemoveItem(_ context.Context, c *engine.Call, pp provPath, _ any) error {
	if err := settable(c, pp); err != nil {
		return err
	}
	items, err := Lookup(c, pp)
	if err != nil {
		return err
	}
	if len(items) == 0 && !strings.ContainsAny(pp.rest, "*?[") {
		return missing(c, pp)
	}
	for _, it := range items {
		name := values.ToStr(dotnet.Property(it, "Name"))
		if pp.drv.provider == "Environment" {
			c.I.Setenv(name, "")
		} else {
			for k := range c.I.Scopes {
				delete(c.I.Scopes[k], strings.ToLower(name))
			}
		}
	}
	return nil
}

func provSetLocation(_ context.Context, c *engine.Call, pp provPath, _ any) error {
	switch {
	case registry(c, pp):
		if !registryHas(pp) {
			return missing(c, provPath{drv: pp.drv, rest: pp.drv.name + `:\` + pp.rest})
		}
	case pp.drv.provider == "Certificate" || pp.drv.provider == "WSMan":
		return &values.NotEmulatedError{What: "Set-Location to the " + pp.drv.name + ": drive"}
	case pp.rest != "":
		// Env:, Variable:, Function: and Alias: have no containers below the root.
		return missing(c, provPath{drv: pp.drv, rest: pp.drv.name + `:\` + pp.rest})
	}
	c.I.Loc = pp.drv.name + `:\` + pp.rest
	if c.I.Loc != pp.drv.name+`:\` {
		c.I.Loc = strings.TrimRight(c.I.Loc, `\`)
	}
	return nil
}

func getPSDrive(_ context.Context, c *engine.Call) error {
	var names []string
	for _, n := range values.ToList(c.Get("Name")) {
		names = append(names, values.ToStr(n))
	}
	prov := c.Str("PSProvider")
	for _, n := range names {
		found := false
		for _, d := range drives {
			found = found || dotnet.Wildcard(n, d.name, true)
		}
		if !found && !strings.ContainsAny(n, "*?[") {
			if err := c.Fail("Cannot find drive. A drive with the name '"+n+"' does not exist.", "ObjectNotFound", n,
				"DriveNotFoundException", "GetDriveNoMatchingDrive"); err != nil {
				return err
			}
		}
	}
	for k := range drives {
		d := &drives[k]
		if prov != "" && !dotnet.Wildcard(prov, d.provider, true) {
			continue
		}
		match := len(names) == 0
		for _, n := range names {
			match = match || dotnet.Wildcard(n, d.name, true)
		}
		if match {
			c.Emit(driveInfo(c.I, d))
		}
	}
	return nil
}

func driveInfo(i *engine.Interp, d *drive) *values.Object {
	cur := ""
	switch {
	case d.name == "C":
		cur = strings.TrimPrefix(i.Dir, `C:\`)
	case i.Loc != "" && strings.HasPrefix(strings.ToLower(i.Loc), strings.ToLower(d.name)+":"):
		cur = strings.TrimLeft(i.Loc[len(d.name)+1:], `\`)
	}
	return values.NewObject(psDriveType, "Name", d.name, "Used", nil, "Free", nil, "Provider", d.provider, "Root", d.root,
		"CurrentLocation", cur, "Description", "")
}

func getPSProvider(_ context.Context, c *engine.Call) error {
	seen := map[string]bool{}
	for _, d := range []string{"Registry", "Alias", "Environment", "FileSystem", "Function", "Variable", "Certificate", "WSMan"} {
		if seen[d] || c.Has("PSProvider") && !dotnet.Wildcard(c.Str("PSProvider"), d, true) {
			continue
		}
		seen[d] = true
		var ds []string
		for _, dr := range drives {
			if dr.provider == d {
				ds = append(ds, dr.name)
			}
		}
		c.Emit(values.NewObject("System.Management.Automation.ProviderInfo", "Name", d, "Capabilities", providerCaps[d],
			"Drives", "{"+strings.Join(ds, ", ")+"}"))
	}
	return nil
}

// providerCaps are Get-PSProvider's Capabilities column.
var providerCaps = map[string]string{
	"Registry": "ShouldProcess, Transactions", "Alias": "ShouldProcess", "Environment": "ShouldProcess",
	"FileSystem": "Filter, ShouldProcess, Credentials", "Function": "ShouldProcess", "Variable": "ShouldProcess",
	"Certificate": "ShouldProcess", "WSMan": "Credentials",
}

// providerRow formats the provider items and drives as Out-Default
// does; it reports false for other objects.
func providerRow(f *format.Formatter, o *values.Object) bool {
	switch o.TypeName {
	case dictEntryType, psVariableType:
		kind := "dict"
		if o.TypeName == psVariableType {
			kind = "variable"
		}
		if f.Kind != kind {
			f.End()
			f.Kind = kind
			f.Line("")
			f.Line(fmt.Sprintf("%-30s %s", "Name", "Value"))
			f.Line(fmt.Sprintf("%-30s %s", "----", "-----"))
		}
		name := values.ToStr(dotnet.Property(o, "Name"))
		if len(name) > 30 {
			name = name[:27] + "..."
		}
		f.Line(strings.TrimRight(fmt.Sprintf("%-30s %s", name, values.ToStr(dotnet.Property(o, "Value"))), " "))
	case functionType, aliasType:
		f.TableRow("command", o, []format.Column{{Name: "CommandType", Width: 15, Right: false}, {Name: "Name", Width: 50, Right: false}, {Name: "Version", Width: 10, Right: false}, {Name: "Source", Width: 0, Right: false}})
	case psDriveType:
		// The drive view: Used and Free are blank where the provider
		// reports no sizes; CurrentLocation fills a 120-column console.
		f.TableRow("psdrive", o, []format.Column{{Name: "Name", Width: 10, Right: false}, {Name: "Used (GB)", Width: 13, Right: true}, {Name: "Free (GB)", Width: 13, Right: true},
			{Name: "Provider", Width: 13, Right: false}, {Name: "Root", Width: 35, Right: false}, {Name: "CurrentLocation", Width: 31, Right: true}})
	case "System.Management.Automation.ProviderInfo":
		f.TableRow("provider", o, []format.Column{{Name: "Name", Width: 20, Right: false}, {Name: "Capabilities", Width: 35, Right: false}, {Name: "Drives", Width: 0, Right: false}})
	default:
		return false
	}
	return true
}
