package fscmd

import (
	"io/fs"
	"sort"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/dotnet"
	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// Item is a file or directory as Get-Item returns it.
func Item(i *engine.Interp, path string, fi fs.FileInfo) *values.Object {
	name := fi.Name()
	if len(path) <= 3 {
		name = path
	}
	mode := "-a----"
	typ := "System.IO.FileInfo"
	if fi.IsDir() {
		mode, typ = "d-----", "System.IO.DirectoryInfo"
	}
	if i.Pwsh7 {
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
	o := values.NewObject(typ, "Name", name, "FullName", path, "Mode", mode, "LastWriteTime", fi.ModTime().Local(),
		"PSIsContainer", fi.IsDir(), "Extension", ext, "BaseName", strings.TrimSuffix(name, ext), "Exists", true,
		"PSParentPath", parent)
	if fi.IsDir() {
		o.Set("Parent", parent)
	} else {
		o.Set("Length", int(fi.Size()))
		o.Set("DirectoryName", parent)
	}
	if target, err := i.Sys.FS.Readlink(path); err == nil {
		o.Set("Target", target)
		o.Set("LinkType", "SymbolicLink")
	} else {
		o.Set("Target", nil)
	}
	return o
}

// resolve finds the paths a name stands for: itself, or the matches of
// a wildcard in its last element.
func resolve(i *engine.Interp, name string) []string {
	path := i.Abs(name)
	if !strings.ContainsAny(name, "*?") {
		if _, err := i.Sys.FS.Stat(path); err != nil {
			return nil
		}
		return []string{path}
	}
	k := strings.LastIndex(path, `\`)
	dir, pat := path[:max(k, 3)], path[k+1:]
	entries, err := i.Sys.FS.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if dotnet.Wildcard(pat, e.Name(), true) {
			out = append(out, i.Sys.FS.Abs(dir, e.Name()))
		}
	}
	return out
}

// children are a directory's entries, sorted: directories first in
// Get-ChildItem's listing, as the FileSystem provider returns them.
func children(i *engine.Interp, dir string) ([]*values.Object, error) {
	entries, err := i.Sys.FS.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var dirs, files []*values.Object
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue
		}
		it := Item(i, i.Sys.FS.Abs(dir, e.Name()), fi)
		if fi.IsDir() {
			dirs = append(dirs, it)
		} else {
			files = append(files, it)
		}
	}
	byName := func(l []*values.Object) {
		sort.SliceStable(l, func(a, b int) bool {
			return strings.ToLower(values.ToStr(dotnet.Property(l[a], "Name"))) < strings.ToLower(values.ToStr(dotnet.Property(l[b], "Name")))
		})
	}
	byName(dirs)
	byName(files)
	return append(dirs, files...), nil
}
