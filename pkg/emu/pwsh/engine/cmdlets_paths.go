package engine

import (
	"context"
	"strings"
)

func copyItem(_ context.Context, c *call) error {
	dst := c.i.abs(c.str("Destination"))
	for _, name := range c.items("Path") {
		paths := c.i.resolve(toStr(name))
		if len(paths) == 0 {
			if err := c.notFound(c.i.abs(toStr(name))); err != nil {
				return err
			}
		}
		for _, p := range paths {
			if err := c.i.copyTree(p, c.i.into(p, dst), c.flag("Recurse")); err != nil {
				if err := c.ioError(err, p); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// into is where src goes: inside dst when dst is a directory.
func (i *Interp) into(src, dst string) string {
	if fi, err := i.sys.FS.Stat(dst); err == nil && fi.IsDir() {
		return i.sys.FS.Abs(dst, src[strings.LastIndex(src, `\`)+1:])
	}
	return dst
}

func (i *Interp) copyTree(src, dst string, recurse bool) error {
	fi, err := i.sys.FS.Stat(src)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		b, err := i.readFile(src)
		if err != nil {
			return err
		}
		return i.writeFile(dst, b, false)
	}
	if err := i.sys.FS.MkdirAll(dst, 0o777); err != nil || !recurse {
		return err
	}
	entries, err := i.sys.FS.ReadDir(src)
	for _, e := range entries {
		if err := i.copyTree(i.sys.FS.Abs(src, e.Name()), i.sys.FS.Abs(dst, e.Name()), true); err != nil {
			return err
		}
	}
	return err
}

func moveItem(_ context.Context, c *call) error {
	dst := c.i.abs(c.str("Destination"))
	for _, name := range c.items("Path") {
		paths := c.i.resolve(toStr(name))
		if len(paths) == 0 {
			if err := c.notFound(c.i.abs(toStr(name))); err != nil {
				return err
			}
		}
		for _, p := range paths {
			if err := c.i.sys.FS.Rename(p, c.i.into(p, dst)); err != nil {
				if err := c.ioError(err, p); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func renameItem(_ context.Context, c *call) error {
	path := c.i.abs(c.str("Path"))
	if _, err := c.i.sys.FS.Stat(path); err != nil {
		return c.notFound(path)
	}
	if err := c.i.sys.FS.Rename(path, c.i.sys.FS.Abs(path, `..\`+c.str("NewName"))); err != nil {
		return c.ioError(err, path)
	}
	return nil
}

func setLocation(_ context.Context, c *call) error {
	target := c.str("Path")
	if !c.has("Path") {
		target = c.i.getenvOr("USERPROFILE", `C:\`)
	}
	path := c.i.abs(target)
	fi, err := c.i.sys.FS.Stat(path)
	if err != nil || !fi.IsDir() {
		return c.notFound(path)
	}
	c.i.dir, c.i.loc = path, ""
	return nil
}

func joinPath(_ context.Context, c *call) error {
	c.emit(strings.TrimRight(c.str("Path"), `\/`) + `\` + strings.TrimLeft(c.str("ChildPath"), `\/`))
	return nil
}

func splitPath(_ context.Context, c *call) error {
	path := c.str("Path")
	k := strings.LastIndexAny(path, `\/`)
	switch {
	case c.flag("Leaf"):
		c.emit(path[k+1:])
	case k < 0:
		c.emit("")
	case k == 2 && path[1] == ':':
		c.emit(path[:3])
	default:
		c.emit(path[:k])
	}
	return nil
}
