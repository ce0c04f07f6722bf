// Package fscmd is PowerShell's items and locations: the FileSystem
// cmdlets (Get-ChildItem, Get-Content, Set-Content, Copy-Item, ...),
// the providers that share them (Env:, Variable:, Function:, Alias:,
// the Registry's HKLM:) with their drives, and the registry-backed
// Get-ItemProperty and the CIM/WMI OS queries. It registers itself
// with the engine when imported.
package fscmd

import (
	"context"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh/dotnet"
	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

func init() {
	engine.Register("Get-Content", "gc cat type", getContent, engine.P("Path", 0, "FullName", "PSPath", "LiteralPath"), engine.Sw("Raw"), engine.N("TotalCount", "First", "Head"), engine.N("Tail", "Last"), engine.N("Encoding"), engine.Sw("Wait"))
	engine.Register("Set-Content", "sc", setContent(false), engine.P("Path", 0), engine.P("Value", 1), engine.Sw("NoNewline"), engine.N("Encoding"), engine.Sw("Force"))
	engine.Register("Add-Content", "ac", setContent(true), engine.P("Path", 0), engine.P("Value", 1), engine.Sw("NoNewline"), engine.N("Encoding"), engine.Sw("Force"))
	engine.Register("Out-File", "", outFileCmd, engine.P("FilePath", 0, "Path"), engine.N("InputObject"), engine.N("Encoding"), engine.Sw("Append"), engine.Sw("Force"), engine.Sw("NoNewline"), engine.N("Width"))
	engine.Register("New-Item", "ni", newItem, engine.P("Path", 0), engine.N("Name"), engine.N("ItemType", "Type"), engine.N("Value"), engine.Sw("Force"))
	// mkdir is Windows PowerShell's function for New-Item -ItemType
	// Directory; md its alias.
	engine.Register("mkdir", "md", func(ctx context.Context, c *engine.Call) error {
		c.Named["itemtype"] = "Directory"
		return newItem(ctx, c)
	}, engine.P("Path", 0), engine.N("Name"), engine.Sw("Force"))
	engine.Register("Remove-Item", "rm del erase rd rmdir ri", removeItem, engine.P("Path", 0, "LiteralPath"), engine.Sw("Recurse"), engine.Sw("Force"), engine.N("Include"), engine.N("Exclude"))
	engine.Register("Test-Path", "", testPath, engine.P("Path", 0, "LiteralPath"), engine.N("PathType"), engine.Sw("IsValid"))
	engine.Register("Get-ChildItem", "ls dir gci", getChildItem, engine.P("Path", 0, "LiteralPath"), engine.P("Filter", 1), engine.Sw("Recurse"), engine.Sw("Force"), engine.Sw("Name"), engine.Sw("File"), engine.Sw("Directory"), engine.N("Include"), engine.N("Exclude"), engine.N("Depth"))
	engine.Register("Get-Item", "gi", getItem, engine.P("Path", 0, "LiteralPath"), engine.Sw("Force"))
	engine.Register("Copy-Item", "cp copy cpi", copyItem, engine.P("Path", 0), engine.P("Destination", 1), engine.Sw("Recurse"), engine.Sw("Force"))
	engine.Register("Move-Item", "mv move mi", moveItem, engine.P("Path", 0), engine.P("Destination", 1), engine.Sw("Force"))
	engine.Register("Rename-Item", "ren rni", renameItem, engine.P("Path", 0), engine.P("NewName", 1), engine.Sw("Force"))
	engine.Register("Get-Location", "pwd gl", func(_ context.Context, c *engine.Call) error {
		c.Emit(values.NewObject("System.Management.Automation.PathInfo", "Path", c.I.Dir))
		return nil
	})
	engine.Register("Set-Location", "cd chdir sl", setLocation, engine.P("Path", 0, "LiteralPath"))
	engine.Register("Join-Path", "", joinPath, engine.P("Path", 0), engine.P("ChildPath", 1))
	engine.Register("Split-Path", "", splitPath, engine.P("Path", 0), engine.Sw("Leaf"), engine.Sw("Parent"))
}

func ioError(c *engine.Call, err error, path string) error {
	return c.Fail(program.ErrorText(err, true), "WriteError", path, "IOException", "System.IO.IOException")
}

func getContent(_ context.Context, c *engine.Call) error {
	if c.Flag("Wait") {
		return &values.NotEmulatedError{What: "Get-Content -Wait"}
	}
	for _, name := range c.Items("Path") {
		paths := resolve(c.I, values.ToStr(name))
		if len(paths) == 0 {
			if err := c.NotFound(c.I.Abs(values.ToStr(name))); err != nil {
				return err
			}
			continue
		}
		for _, path := range paths {
			if err := contentOf(c, path); err != nil {
				return err
			}
		}
	}
	return nil
}

func contentOf(c *engine.Call, path string) error {
	if fi, err := c.I.Sys.FS.Stat(path); err == nil && fi.IsDir() {
		return c.Fail("Unable to get content because it is a directory: '"+path+"'. Please use 'Get-ChildItem' instead.",
			"InvalidOperation", path, "InvalidOperationException", "GetContentReaderDirectoryError")
	}
	b, err := c.I.ReadFile(path)
	if err != nil {
		return c.Fail("Access to the path '"+path+"' is denied.", "PermissionDenied", path, "UnauthorizedAccessException", "GetContentReaderUnauthorizedAccessError")
	}
	text := engine.DecodeText(b)
	if c.Flag("Raw") {
		if text != "" { // an empty file gives nothing, not ""
			c.Emit(text)
		}
		return nil
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if c.Has("TotalCount") {
		k, _ := values.ToInt(c.Get("TotalCount"))
		lines = lines[:min(max(k, 0), len(lines))]
	}
	if c.Has("Tail") {
		k, _ := values.ToInt(c.Get("Tail"))
		lines = lines[max(0, len(lines)-k):]
	}
	for _, l := range lines {
		c.Emit(l)
	}
	return nil
}

// setContent is Set-Content and Add-Content: the values as lines,
// ANSI in Windows PowerShell, UTF-8 in PowerShell 7.
func setContent(appendTo bool) func(context.Context, *engine.Call) error {
	return func(_ context.Context, c *engine.Call) error {
		var b strings.Builder
		for _, v := range c.Items("Value") {
			b.WriteString(values.ToStr(v))
			if !c.Flag("NoNewline") {
				b.WriteString(values.NL)
			}
		}
		enc := c.Str("Encoding")
		if enc == "" {
			enc = "ascii"
		}
		for _, name := range values.ToList(c.Get("Path")) {
			path := c.I.Abs(values.ToStr(name))
			if fi, err := c.I.Sys.FS.Stat(path); err == nil && fi.IsDir() {
				if err := c.Fail("Access to the path '"+path+"' is denied.", "PermissionDenied", path, "UnauthorizedAccessException", "GetContentWriterUnauthorizedAccessError"); err != nil {
					return err
				}
				continue
			}
			data := c.I.Encode(b.String(), enc, appendTo && c.I.FileExists(path))
			if err := c.I.WriteFile(path, data, appendTo); err != nil {
				if winutil.IsNotExist(err) {
					// The file's directory is missing: .NET's
					// DirectoryNotFoundException.
					err = c.Fail("Could not find a part of the path '"+path+"'.", "ObjectNotFound", path, "DirectoryNotFoundException", "GetContentWriterDirectoryNotFoundError")
				} else {
					err = ioError(c, err, path)
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	}
}

func outFileCmd(_ context.Context, c *engine.Call) error {
	path := c.I.Abs(c.Str("FilePath"))
	err := c.I.OutFile(path, c.Items("InputObject"), c.Flag("Append"), c.Str("Encoding"))
	if re, ok := err.(*values.RuntimeError); ok {
		return c.Fail(re.Rec.Msg, "OpenError", path, "DirectoryNotFoundException", "FileOpenFailure")
	}
	return err
}

func newItem(_ context.Context, c *engine.Call) error {
	path := c.I.Abs(c.Str("Path"))
	if c.Has("Name") {
		path = c.I.Sys.FS.Abs(path, c.Str("Name"))
	}
	kind := strings.ToLower(c.Str("ItemType"))
	fi, err := c.I.Sys.FS.Stat(path)
	exists := err == nil
	switch {
	case strings.HasPrefix(kind, "d"):
		if exists && !c.Flag("Force") {
			return c.Fail("An item with the specified name "+path+" already exists.", "ResourceExists", path, "IOException", "DirectoryExist")
		}
		if err := c.I.Sys.FS.MkdirAll(path, 0o777); err != nil {
			return ioError(c, err, path)
		}
	case kind == "" || kind == "file":
		if exists && !c.Flag("Force") {
			return c.Fail("The file '"+path+"' already exists.", "WriteError", path, "IOException", "NewItemIOError")
		}
		if exists && fi.IsDir() {
			return c.Fail("Access to the path '"+path+"' is denied.", "PermissionDenied", path, "UnauthorizedAccessException", "NewItemUnauthorizedAccessError")
		}
		if c.Flag("Force") {
			c.I.Sys.FS.MkdirAll(c.I.Sys.FS.Abs(path, ".."), 0o777)
		}
		if err := c.I.WriteFile(path, []byte(c.Str("Value")), false); err != nil {
			return c.Fail("Could not find a part of the path '"+path+"'.", "WriteError", path, "DirectoryNotFoundException", "NewItemIOError")
		}
	default:
		return &values.NotEmulatedError{What: "New-Item -ItemType " + c.Str("ItemType")}
	}
	if fi, err = c.I.Sys.FS.Stat(path); err == nil {
		c.Emit(Item(c.I, path, fi))
	}
	return nil
}

func removeItem(_ context.Context, c *engine.Call) error {
	for _, name := range c.Items("Path") {
		path := values.ToStr(name)
		if o, ok := name.(*values.Object); ok {
			path = values.ToStr(dotnet.Property(o, "FullName"))
		}
		paths := resolve(c.I, path)
		if len(paths) == 0 && !strings.ContainsAny(path, "*?") {
			if err := c.NotFound(c.I.Abs(path)); err != nil {
				return err
			}
		}
		for _, p := range paths {
			var err error
			if c.Flag("Recurse") {
				err = c.I.Sys.FS.RemoveAll(p)
			} else if err = c.I.Sys.FS.Remove(p); err != nil && strings.Contains(program.ErrorText(err, true), "not empty") {
				err = c.Fail("The item at "+p+" has children and the Recurse parameter was not specified. If you continue, all children will be removed with the item. Are you sure you want to continue?",
					"InvalidOperation", p, "PSInvalidOperationException", "RemoveItemRecursiveWithoutRecurse")
				if err != nil {
					return err
				}
				continue
			}
			if err != nil {
				if err := ioError(c, err, p); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func testPath(_ context.Context, c *engine.Call) error {
	for _, name := range c.Items("Path") {
		if c.Flag("IsValid") {
			// -IsValid asks only whether the path is well-formed
			// (Path.GetInvalidPathChars), not whether it exists.
			c.Emit(!strings.ContainsAny(values.ToStr(name), "\"<>|\x00"))
			continue
		}
		paths := resolve(c.I, values.ToStr(name))
		ok := len(paths) > 0
		if ok && c.Has("PathType") {
			fi, _ := c.I.Sys.FS.Stat(paths[0])
			leaf := strings.EqualFold(c.Str("PathType"), "Leaf")
			ok = fi != nil && fi.IsDir() != leaf
		}
		c.Emit(ok)
	}
	return nil
}

func getChildItem(_ context.Context, c *engine.Call) error {
	names := c.Items("Path")
	if len(names) == 0 {
		names = []any{"."}
	}
	for _, name := range names {
		paths := resolve(c.I, values.ToStr(name))
		if len(paths) == 0 {
			if err := c.NotFound(c.I.Abs(values.ToStr(name))); err != nil {
				return err
			}
			continue
		}
		for _, p := range paths {
			if err := list(c, p, "", strings.ContainsAny(values.ToStr(name), "*?")); err != nil {
				return err
			}
		}
	}
	return nil
}

// list emits a directory's children (or a file itself); with -Recurse
// the subdirectories follow, each after its parent's listing, and -Name
// gives names relative to the listed directory (rel).
// withinDepth tells whether -Depth lets the listing go below the
// directory at rel (its depth is the number of its separators).
func withinDepth(c *engine.Call, rel string) bool {
	if !c.Has("Depth") {
		return true
	}
	n, _ := values.ToInt(c.Get("Depth"))
	return strings.Count(rel, `\`) < n
}

// anyMatch tells whether a name matches one of -Include's or
// -Exclude's wildcard patterns.
func anyMatch(patterns any, name string) bool {
	for _, p := range values.ToList(patterns) {
		if dotnet.Wildcard(values.ToStr(p), name, true) {
			return true
		}
	}
	return false
}

func list(c *engine.Call, path, rel string, matched bool) error {
	fi, err := c.I.Sys.FS.Stat(path)
	if err != nil {
		return c.NotFound(path)
	}
	var items []*values.Object
	if !fi.IsDir() || matched {
		items = []*values.Object{Item(c.I, path, fi)}
	} else if items, err = children(c.I, path); err != nil {
		return ioError(c, err, path)
	}
	var subdirs []*values.Object
	for _, it := range items {
		isDir := values.ToBool(dotnet.Property(it, "PSIsContainer"))
		name := values.ToStr(dotnet.Property(it, "Name"))
		show := !(c.Flag("File") && isDir) && !(c.Flag("Directory") && !isDir) &&
			(!c.Has("Filter") || dotnet.Wildcard(c.Str("Filter"), name, true)) &&
			(!c.Has("Include") || anyMatch(c.Get("Include"), name)) && !(c.Has("Exclude") && anyMatch(c.Get("Exclude"), name))
		if show && c.Flag("Name") {
			c.Emit(rel + name)
		} else if show {
			c.Emit(it)
		}
		if isDir && (c.Flag("Recurse") || c.Has("Depth")) && fi.IsDir() && withinDepth(c, rel) {
			subdirs = append(subdirs, it)
		}
	}
	for _, it := range subdirs {
		if err := list(c, values.ToStr(dotnet.Property(it, "FullName")), rel+values.ToStr(dotnet.Property(it, "Name"))+`\`, false); err != nil {
			return err
		}
	}
	return nil
}

func getItem(_ context.Context, c *engine.Call) error {
	for _, name := range c.Items("Path") {
		paths := resolve(c.I, values.ToStr(name))
		if len(paths) == 0 {
			if err := c.NotFound(c.I.Abs(values.ToStr(name))); err != nil {
				return err
			}
		}
		for _, p := range paths {
			if fi, err := c.I.Sys.FS.Stat(p); err == nil {
				c.Emit(Item(c.I, p, fi))
			}
		}
	}
	return nil
}
