package engine

import (
	"io/fs"
	"sort"
	"strings"
)

// item is a file or directory as Get-Item returns it.
func (i *Interp) item(path string, fi fs.FileInfo) *object {
	name := fi.Name()
	if len(path) <= 3 {
		name = path
	}
	mode := "-a----"
	typ := "System.IO.FileInfo"
	if fi.IsDir() {
		mode, typ = "d-----", "System.IO.DirectoryInfo"
	}
	if i.pwsh7 {
		mode = mode[:5]
	}
	parent := path
	if k := strings.LastIndex(path, `\`); k > 2 {
		parent = path[:k]
	} else if len(path) > 3 {
		parent = path[:3]
	}
	ext := ""
	if k := strings.LastIndex(name, "."); k > 0 && !fi.IsDir() {
		ext = name[k:]
	}
	o := newObject(typ, "Name", name, "FullName", path, "Mode", mode, "LastWriteTime", fi.ModTime().Local(),
		"PSIsContainer", fi.IsDir(), "Extension", ext, "BaseName", strings.TrimSuffix(name, ext), "Exists", true,
		"PSParentPath", parent)
	if fi.IsDir() {
		o.set("Parent", parent)
	} else {
		o.set("Length", int(fi.Size()))
		o.set("DirectoryName", parent)
	}
	if target, err := i.sys.FS.Readlink(path); err == nil {
		o.set("Target", target)
		o.set("LinkType", "SymbolicLink")
	} else {
		o.set("Target", nil)
	}
	return o
}

// resolve finds the paths a name stands for: itself, or the matches of
// a wildcard in its last element.
func (i *Interp) resolve(name string) []string {
	path := i.abs(name)
	if !strings.ContainsAny(name, "*?") {
		if _, err := i.sys.FS.Stat(path); err != nil {
			return nil
		}
		return []string{path}
	}
	k := strings.LastIndex(path, `\`)
	dir, pat := path[:max(k, 3)], path[k+1:]
	entries, err := i.sys.FS.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if wildcard(pat, e.Name(), true) {
			out = append(out, i.sys.FS.Abs(dir, e.Name()))
		}
	}
	return out
}

// children are a directory's entries, sorted: directories first in
// Get-ChildItem's listing, as the FileSystem provider returns them.
func (i *Interp) children(dir string) ([]*object, error) {
	entries, err := i.sys.FS.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var dirs, files []*object
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue
		}
		it := i.item(i.sys.FS.Abs(dir, e.Name()), fi)
		if fi.IsDir() {
			dirs = append(dirs, it)
		} else {
			files = append(files, it)
		}
	}
	byName := func(l []*object) {
		sort.SliceStable(l, func(a, b int) bool {
			return strings.ToLower(toStr(property(l[a], "Name"))) < strings.ToLower(toStr(property(l[b], "Name")))
		})
	}
	byName(dirs)
	byName(files)
	return append(dirs, files...), nil
}
