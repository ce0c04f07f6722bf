package engine

import (
	"context"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

func init() {
	register("Get-Content", "gc cat type", getContent, p("Path", 0, "FullName", "PSPath", "LiteralPath"), sw("Raw"), n("TotalCount", "First", "Head"), n("Tail", "Last"), n("Encoding"), sw("Wait"))
	register("Set-Content", "sc", setContent(false), p("Path", 0), p("Value", 1), sw("NoNewline"), n("Encoding"), sw("Force"))
	register("Add-Content", "ac", setContent(true), p("Path", 0), p("Value", 1), sw("NoNewline"), n("Encoding"), sw("Force"))
	register("Out-File", "", outFileCmd, p("FilePath", 0, "Path"), n("InputObject"), n("Encoding"), sw("Append"), sw("Force"), sw("NoNewline"), n("Width"))
	register("New-Item", "ni", newItem, p("Path", 0), n("Name"), n("ItemType", "Type"), n("Value"), sw("Force"))
	register("Remove-Item", "rm del erase rd rmdir ri", removeItem, p("Path", 0, "LiteralPath"), sw("Recurse"), sw("Force"), n("Include"), n("Exclude"))
	register("Test-Path", "", testPath, p("Path", 0, "LiteralPath"), n("PathType"), sw("IsValid"))
	register("Get-ChildItem", "ls dir gci", getChildItem, p("Path", 0, "LiteralPath"), p("Filter", 1), sw("Recurse"), sw("Force"), sw("Name"), sw("File"), sw("Directory"), n("Include"), n("Depth"))
	register("Get-Item", "gi", getItem, p("Path", 0, "LiteralPath"), sw("Force"))
	register("Copy-Item", "cp copy cpi", copyItem, p("Path", 0), p("Destination", 1), sw("Recurse"), sw("Force"))
	register("Move-Item", "mv move mi", moveItem, p("Path", 0), p("Destination", 1), sw("Force"))
	register("Rename-Item", "ren rni", renameItem, p("Path", 0), p("NewName", 1), sw("Force"))
	register("Get-Location", "pwd gl", func(_ context.Context, c *call) error {
		c.emit(newObject("System.Management.Automation.PathInfo", "Path", c.i.dir))
		return nil
	})
	register("Set-Location", "cd chdir sl", setLocation, p("Path", 0, "LiteralPath"))
	register("Join-Path", "", joinPath, p("Path", 0), p("ChildPath", 1))
	register("Split-Path", "", splitPath, p("Path", 0), sw("Leaf"), sw("Parent"))
}

func (c *call) notFound(path string) error {
	return c.fail("Cannot find path '"+path+"' because it does not exist.", "ObjectNotFound", path, "ItemNotFoundException", "PathNotFound")
}

func (c *call) ioError(err error, path string) error {
	return c.fail(program.ErrorText(err, true), "WriteError", path, "IOException", "System.IO.IOException")
}

func getContent(_ context.Context, c *call) error {
	if c.flag("Wait") {
		return &notEmulatedError{"Get-Content -Wait"}
	}
	for _, name := range c.items("Path") {
		paths := c.i.resolve(toStr(name))
		if len(paths) == 0 {
			if err := c.notFound(c.i.abs(toStr(name))); err != nil {
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

func (c *call) contentOf(path string) error {
	if fi, err := c.i.sys.FS.Stat(path); err == nil && fi.IsDir() {
		return c.fail("Unable to get content because it is a directory: '"+path+"'. Please use 'Get-ChildItem' instead.",
			"InvalidOperation", path, "InvalidOperationException", "GetContentReaderDirectoryError")
	}
	b, err := c.i.readFile(path)
	if err != nil {
		return c.fail("Access to the path '"+path+"' is denied.", "PermissionDenied", path, "UnauthorizedAccessException", "GetContentReaderUnauthorizedAccessError")
	}
	text := decodeText(b)
	if c.flag("Raw") {
		c.emit(text)
		return nil
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if c.has("TotalCount") {
		k, _ := toInt(c.get("TotalCount"))
		lines = lines[:min(max(k, 0), len(lines))]
	}
	if c.has("Tail") {
		k, _ := toInt(c.get("Tail"))
		lines = lines[max(0, len(lines)-k):]
	}
	for _, l := range lines {
		c.emit(l)
	}
	return nil
}

// setContent is Set-Content and Add-Content: the values as lines,
// ANSI in Windows PowerShell, UTF-8 in PowerShell 7.
func setContent(appendTo bool) func(context.Context, *call) error {
	return func(_ context.Context, c *call) error {
		var b strings.Builder
		for _, v := range c.items("Value") {
			b.WriteString(toStr(v))
			if !c.flag("NoNewline") {
				b.WriteString(NL)
			}
		}
		enc := c.str("Encoding")
		if enc == "" {
			enc = "ascii"
		}
		for _, name := range toList(c.get("Path")) {
			path := c.i.abs(toStr(name))
			if fi, err := c.i.sys.FS.Stat(path); err == nil && fi.IsDir() {
				if err := c.fail("Access to the path '"+path+"' is denied.", "PermissionDenied", path, "UnauthorizedAccessException", "GetContentWriterUnauthorizedAccessError"); err != nil {
					return err
				}
				continue
			}
			data := c.i.encode(b.String(), enc, appendTo && c.i.fileExists(path))
			if err := c.i.writeFile(path, data, appendTo); err != nil {
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

func outFileCmd(_ context.Context, c *call) error {
	path := c.i.abs(c.str("FilePath"))
	err := c.i.outFile(path, c.items("InputObject"), c.flag("Append"), c.str("Encoding"))
	if re, ok := err.(*runtimeError); ok {
		return c.fail(re.rec.msg, "OpenError", path, "DirectoryNotFoundException", "FileOpenFailure")
	}
	return err
}

func newItem(_ context.Context, c *call) error {
	path := c.i.abs(c.str("Path"))
	if c.has("Name") {
		path = c.i.sys.FS.Abs(path, c.str("Name"))
	}
	kind := strings.ToLower(c.str("ItemType"))
	fi, err := c.i.sys.FS.Stat(path)
	exists := err == nil
	switch {
	case strings.HasPrefix(kind, "d"):
		if exists && !c.flag("Force") {
			return c.fail("An item with the specified name "+path+" already exists.", "ResourceExists", path, "IOException", "DirectoryExist")
		}
		if err := c.i.sys.FS.MkdirAll(path, 0o777); err != nil {
			return c.ioError(err, path)
		}
	case kind == "" || kind == "file":
		if exists && !c.flag("Force") {
			return c.fail("The file '"+path+"' already exists.", "WriteError", path, "IOException", "NewItemIOError")
		}
		if exists && fi.IsDir() {
			return c.fail("Access to the path '"+path+"' is denied.", "PermissionDenied", path, "UnauthorizedAccessException", "NewItemUnauthorizedAccessError")
		}
		if c.flag("Force") {
			c.i.sys.FS.MkdirAll(c.i.sys.FS.Abs(path, ".."), 0o777)
		}
		if err := c.i.writeFile(path, []byte(c.str("Value")), false); err != nil {
			return c.fail("Could not find a part of the path '"+path+"'.", "WriteError", path, "DirectoryNotFoundException", "NewItemIOError")
		}
	default:
		return &notEmulatedError{"New-Item -ItemType " + c.str("ItemType")}
	}
	if fi, err = c.i.sys.FS.Stat(path); err == nil {
		c.emit(c.i.item(path, fi))
	}
	return nil
}

func removeItem(_ context.Context, c *call) error {
	for _, name := range c.items("Path") {
		path := toStr(name)
		if o, ok := name.(*object); ok {
			path = toStr(property(o, "FullName"))
		}
		paths := c.i.resolve(path)
		if len(paths) == 0 && !strings.ContainsAny(path, "*?") {
			if err := c.notFound(c.i.abs(path)); err != nil {
				return err
			}
		}
		for _, p := range paths {
			var err error
			if c.flag("Recurse") {
				err = c.i.sys.FS.RemoveAll(p)
			} else if err = c.i.sys.FS.Remove(p); err != nil && strings.Contains(program.ErrorText(err, true), "not empty") {
				err = c.fail("The item at "+p+" has children and the Recurse parameter was not specified. If you continue, all children will be removed with the item. Are you sure you want to continue?",
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

func testPath(_ context.Context, c *call) error {
	for _, name := range c.items("Path") {
		paths := c.i.resolve(toStr(name))
		ok := len(paths) > 0
		if ok && c.has("PathType") {
			fi, _ := c.i.sys.FS.Stat(paths[0])
			leaf := strings.EqualFold(c.str("PathType"), "Leaf")
			ok = fi != nil && fi.IsDir() != leaf
		}
		c.emit(ok)
	}
	return nil
}

func getChildItem(_ context.Context, c *call) error {
	names := c.items("Path")
	if len(names) == 0 {
		names = []any{"."}
	}
	for _, name := range names {
		paths := c.i.resolve(toStr(name))
		if len(paths) == 0 {
			if err := c.notFound(c.i.abs(toStr(name))); err != nil {
				return err
			}
			continue
		}
		for _, p := range paths {
			if err := c.list(p, "", strings.ContainsAny(toStr(name), "*?")); err != nil {
				return err
			}
		}
	}
	return nil
}

// list emits a directory's children (or a file itself); with -Recurse
// the subdirectories follow, each after its parent's listing, and -Name
// gives names relative to the listed directory (rel).
func (c *call) list(path, rel string, matched bool) error {
	fi, err := c.i.sys.FS.Stat(path)
	if err != nil {
		return c.notFound(path)
	}
	var items []*object
	if !fi.IsDir() || matched {
		items = []*object{c.i.item(path, fi)}
	} else if items, err = c.i.children(path); err != nil {
		return c.ioError(err, path)
	}
	var subdirs []*object
	for _, it := range items {
		isDir := toBool(property(it, "PSIsContainer"))
		name := toStr(property(it, "Name"))
		show := !(c.flag("File") && isDir) && !(c.flag("Directory") && !isDir) &&
			(!c.has("Filter") || wildcard(c.str("Filter"), name, true))
		if show && c.flag("Name") {
			c.emit(rel + name)
		} else if show {
			c.emit(it)
		}
		if isDir && c.flag("Recurse") && fi.IsDir() {
			subdirs = append(subdirs, it)
		}
	}
	for _, it := range subdirs {
		if err := c.list(toStr(property(it, "FullName")), rel+toStr(property(it, "Name"))+`\`, false); err != nil {
			return err
		}
	}
	return nil
}

func getItem(_ context.Context, c *call) error {
	for _, name := range c.items("Path") {
		paths := c.i.resolve(toStr(name))
		if len(paths) == 0 {
			if err := c.notFound(c.i.abs(toStr(name))); err != nil {
				return err
			}
		}
		for _, p := range paths {
			if fi, err := c.i.sys.FS.Stat(p); err == nil {
				c.emit(c.i.item(p, fi))
			}
		}
	}
	return nil
}
