package engine

import (
	"context"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

func init() {
	Register("Get-Content", "gc cat type", getContent, P("Path", 0, "FullName", "PSPath", "LiteralPath"), Sw("Raw"), N("TotalCount", "First", "Head"), N("Tail", "Last"), N("Encoding"), Sw("Wait"))
	Register("Set-Content", "sc", setContent(false), P("Path", 0), P("Value", 1), Sw("NoNewline"), N("Encoding"), Sw("Force"))
	Register("Add-Content", "ac", setContent(true), P("Path", 0), P("Value", 1), Sw("NoNewline"), N("Encoding"), Sw("Force"))
	Register("Out-File", "", outFileCmd, P("FilePath", 0, "Path"), N("InputObject"), N("Encoding"), Sw("Append"), Sw("Force"), Sw("NoNewline"), N("Width"))
	Register("New-Item", "ni", newItem, P("Path", 0), N("Name"), N("ItemType", "Type"), N("Value"), Sw("Force"))
	Register("Remove-Item", "rm del erase rd rmdir ri", removeItem, P("Path", 0, "LiteralPath"), Sw("Recurse"), Sw("Force"), N("Include"), N("Exclude"))
	Register("Test-Path", "", testPath, P("Path", 0, "LiteralPath"), N("PathType"), Sw("IsValid"))
	Register("Get-ChildItem", "ls dir gci", getChildItem, P("Path", 0, "LiteralPath"), P("Filter", 1), Sw("Recurse"), Sw("Force"), Sw("Name"), Sw("File"), Sw("Directory"), N("Include"), N("Depth"))
	Register("Get-Item", "gi", getItem, P("Path", 0, "LiteralPath"), Sw("Force"))
	Register("Copy-Item", "cp copy cpi", copyItem, P("Path", 0), P("Destination", 1), Sw("Recurse"), Sw("Force"))
	Register("Move-Item", "mv move mi", moveItem, P("Path", 0), P("Destination", 1), Sw("Force"))
	Register("Rename-Item", "ren rni", renameItem, P("Path", 0), P("NewName", 1), Sw("Force"))
	Register("Get-Location", "pwd gl", func(_ context.Context, c *Call) error {
		c.Emit(values.NewObject("System.Management.Automation.PathInfo", "Path", c.I.dir))
		return nil
	})
	Register("Set-Location", "cd chdir sl", setLocation, P("Path", 0, "LiteralPath"))
	Register("Join-Path", "", joinPath, P("Path", 0), P("ChildPath", 1))
	Register("Split-Path", "", splitPath, P("Path", 0), Sw("Leaf"), Sw("Parent"))
}

func (c *Call) ioError(err error, path string) error {
	return c.Fail(program.ErrorText(err, true), "WriteError", path, "IOException", "System.IO.IOException")
}

func getContent(_ context.Context, c *Call) error {
	if c.Flag("Wait") {
		return &values.NotEmulatedError{What: "Get-Content -Wait"}
	}
	for _, name := range c.Items("Path") {
		paths := c.I.resolve(values.ToStr(name))
		if len(paths) == 0 {
			if err := c.notFound(c.I.Abs(values.ToStr(name))); err != nil {
				return err
			}
			continue
		}
		for _, path := range paths {
			if err := c.contentOf(path); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *Call) contentOf(path string) error {
	if fi, err := c.I.Sys.FS.Stat(path); err == nil && fi.IsDir() {
		return c.Fail("Unable to get content because it is a directory: '"+path+"'. Please use 'Get-ChildItem' instead.",
			"InvalidOperation", path, "InvalidOperationException", "GetContentReaderDirectoryError")
	}
	b, err := c.I.readFile(path)
	if err != nil {
		return c.Fail("Access to the path '"+path+"' is denied.", "PermissionDenied", path, "UnauthorizedAccessException", "GetContentReaderUnauthorizedAccessError")
	}
	text := decodeText(b)
	if c.Flag("Raw") {
		c.Emit(text)
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
func setContent(appendTo bool) func(context.Context, *Call) error {
	return func(_ context.Context, c *Call) error {
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
			data := c.I.encode(b.String(), enc, appendTo && c.I.fileExists(path))
			if err := c.I.WriteFile(path, data, appendTo); err != nil {
				if winutil.IsNotExist(err) {
					err = c.notFound(path)
				} else {
					err = c.ioError(err, path)
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	}
}

func outFileCmd(_ context.Context, c *Call) error {
	path := c.I.Abs(c.Str("FilePath"))
	err := c.I.outFile(path, c.Items("InputObject"), c.Flag("Append"), c.Str("Encoding"))
	if re, ok := err.(*values.RuntimeError); ok {
		return c.Fail(re.Rec.Msg, "OpenError", path, "DirectoryNotFoundException", "FileOpenFailure")
	}
	return err
}

func newItem(_ context.Context, c *Call) error {
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
			return c.ioError(err, path)
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
		c.Emit(c.I.Item(path, fi))
	}
	return nil
}

func removeItem(_ context.Context, c *Call) error {
	for _, name := range c.Items("Path") {
		path := values.ToStr(name)
		if o, ok := name.(*values.Object); ok {
			path = values.ToStr(Property(o, "FullName"))
		}
		paths := c.I.resolve(path)
		if len(paths) == 0 && !strings.ContainsAny(path, "*?") {
			if err := c.notFound(c.I.Abs(path)); err != nil {
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
				if err := c.ioError(err, p); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func testPath(_ context.Context, c *Call) error {
	for _, name := range c.Items("Path") {
		paths := c.I.resolve(values.ToStr(name))
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

func getChildItem(_ context.Context, c *Call) error {
	names := c.Items("Path")
	if len(names) == 0 {
		names = []any{"."}
	}
	for _, name := range names {
		paths := c.I.resolve(values.ToStr(name))
		if len(paths) == 0 {
			if err := c.notFound(c.I.Abs(values.ToStr(name))); err != nil {
				return err
			}
			continue
		}
		for _, p := range paths {
			if err := c.list(p, "", strings.ContainsAny(values.ToStr(name), "*?")); err != nil {
				return err
			}
		}
	}
	return nil
}

// list emits a directory's children (or a file itself); with -Recurse
// the subdirectories follow, each after its parent's listing, and -Name
// gives names relative to the listed directory (rel).
func (c *Call) list(path, rel string, matched bool) error {
	fi, err := c.I.Sys.FS.Stat(path)
	if err != nil {
		return c.notFound(path)
	}
	var items []*values.Object
	if !fi.IsDir() || matched {
		items = []*values.Object{c.I.Item(path, fi)}
	} else if items, err = c.I.children(path); err != nil {
		return c.ioError(err, path)
	}
	var subdirs []*values.Object
	for _, it := range items {
		isDir := values.ToBool(Property(it, "PSIsContainer"))
		name := values.ToStr(Property(it, "Name"))
		show := !(c.Flag("File") && isDir) && !(c.Flag("Directory") && !isDir) &&
			(!c.Has("Filter") || Wildcard(c.Str("Filter"), name, true))
		if show && c.Flag("Name") {
			c.Emit(rel + name)
		} else if show {
			c.Emit(it)
		}
		if isDir && c.Flag("Recurse") && fi.IsDir() {
			subdirs = append(subdirs, it)
		}
	}
	for _, it := range subdirs {
		if err := c.list(values.ToStr(Property(it, "FullName")), rel+values.ToStr(Property(it, "Name"))+`\`, false); err != nil {
			return err
		}
	}
	return nil
}

func getItem(_ context.Context, c *Call) error {
	for _, name := range c.Items("Path") {
		paths := c.I.resolve(values.ToStr(name))
		if len(paths) == 0 {
			if err := c.notFound(c.I.Abs(values.ToStr(name))); err != nil {
				return err
			}
		}
		for _, p := range paths {
			if fi, err := c.I.Sys.FS.Stat(p); err == nil {
				c.Emit(c.I.Item(p, fi))
			}
		}
	}
	return nil
}
