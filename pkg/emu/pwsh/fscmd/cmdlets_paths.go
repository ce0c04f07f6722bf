package fscmd

import (
	"context"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

func copyItem(_ context.Context, c *engine.Call) error {
	dst := c.I.Abs(c.Str("Destination"))
	for _, name := range c.Items("Path") {
		paths := resolve(c.I, values.ToStr(name))
		if len(paths) == 0 {
			if err := c.NotFound(c.I.Abs(values.ToStr(name))); err != nil {
				return err
			}
		}
		for _, p := range paths {
			if err := copyTree(c.I, p, into(c.I, p, dst), c.Flag("Recurse")); err != nil {
				if err := ioError(c, err, p); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// into is where src goes: inside dst when dst is a directory.
func into(i *engine.Interp, src, dst string) string {
	if fi, err := i.Sys.FS.Stat(dst); err == nil && fi.IsDir() {
		return i.Sys.FS.Abs(dst, src[strings.LastIndex(src, `\`)+1:])
	}
	return dst
}

func copyTree(i *engine.Interp, src, dst string, recurse bool) error {
	fi, err := i.Sys.FS.Stat(src)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		b, err := i.ReadFile(src)
		if err != nil {
			return err
		}
		return i.WriteFile(dst, b, false)
	}
	if err := i.Sys.FS.MkdirAll(dst, 0o777); err != nil || !recurse {
		return err
	}
	entries, err := i.Sys.FS.ReadDir(src)
	for _, e := range entries {
		if err := copyTree(i, i.Sys.FS.Abs(src, e.Name()), i.Sys.FS.Abs(dst, e.Name()), true); err != nil {
			return err
		}
	}
	return err
}

func moveItem(_ context.Context, c *engine.Call) error {
	dst := c.I.Abs(c.Str("Destination"))
	for _, name := range c.Items("Path") {
		paths := resolve(c.I, values.ToStr(name))
		if len(paths) == 0 {
			if err := c.NotFound(c.I.Abs(values.ToStr(name))); err != nil {
				return err
			}
		}
		for _, p := range paths {
			// An existing file is not replaced without -Force (.NET's
			// File.Move refuses it).
			if fi, err := c.I.Sys.FS.Stat(into(c.I, p, dst)); err == nil && !fi.IsDir() && !c.Flag("Force") {
				if err := c.Fail("Cannot create a file when that file already exists.", "WriteError", p, "IOException", "MoveFileInfoItemIOError"); err != nil {
					return err
				}
				continue
			}
			if err := c.I.Sys.FS.Rename(p, into(c.I, p, dst)); err != nil {
				if err := ioError(c, err, p); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func renameItem(_ context.Context, c *engine.Call) error {
	path := c.I.Abs(c.Str("Path"))
	if _, err := c.I.Sys.FS.Stat(path); err != nil {
		return c.NotFound(path)
	}
	if err := c.I.Sys.FS.Rename(path, c.I.Sys.FS.Abs(path, `..\`+c.Str("NewName"))); err != nil {
		return ioError(c, err, path)
	}
	return nil
}

func setLocation(_ context.Context, c *engine.Call) error {
	target := c.Str("Path")
	if !c.Has("Path") {
		target = c.I.GetenvOr("USERPROFILE", `C:\`)
	}
	path := c.I.Abs(target)
	fi, err := c.I.Sys.FS.Stat(path)
	if err != nil || !fi.IsDir() {
		return c.NotFound(path)
	}
	c.I.Dir, c.I.Loc = path, ""
	return nil
}

func joinPath(_ context.Context, c *engine.Call) error {
	c.Emit(strings.TrimRight(c.Str("Path"), `\/`) + `\` + strings.TrimLeft(c.Str("ChildPath"), `\/`))
	return nil
}

func splitPath(_ context.Context, c *engine.Call) error {
	path := c.Str("Path")
	k := strings.LastIndexAny(path, `\/`)
	switch {
	case c.Flag("Leaf"):
		c.Emit(path[k+1:])
	case k < 0:
		c.Emit("")
	case k == 2 && path[1] == ':':
		c.Emit(path[:3])
	default:
		c.Emit(path[:k])
	}
	return nil
}
