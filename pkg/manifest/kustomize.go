package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// renderKustomize builds the kustomization in dir in-process, as
// `kustomize build dir` would (default options: no plugins, root-only
// file loading). Each object is placed in the file and document it came
// from, found through kustomize's origin annotations (turned on for the
// build and taken off the objects again unless the kustomization asks for
// them), so findings name a line of a source file; a generated object
// keeps File set to dir.
func renderKustomize(dir string) ([]Object, []error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	fs := &originFS{FileSystem: filesys.MakeFsOnDisk(), root: absPath(dir)}
	resMap, err := k.Run(fs, dir)
	if err != nil {
		return nil, []error{&InputError{File: dir, Err: fmt.Errorf("kustomize build: %w", err)}}
	}
	src := sources{}
	var objs []Object
	var errs []error
	for _, r := range resMap.Resources() {
		origin, _ := r.GetOrigin()
		if !fs.userWantsOrigin {
			_ = r.SetOrigin(nil)
		}
		// Kustomize already holds each resource as a yaml.v3 node, so it is
		// converted directly instead of being printed and parsed again.
		// Its output is written YAML 1.2 style (a "yes" string is quoted
		// when printed), so YAML 1.1 booleans are not applied here.
		c := converter{budget: 1_000_000, yaml12: true}
		v, err := c.value(r.YNode())
		m, ok := v.(map[string]any)
		if err == nil && !ok {
			err = fmt.Errorf("resource is not an object")
		}
		if err == nil {
			err = checkTypeMeta(m)
		}
		if err != nil {
			errs = append(errs, &InputError{File: dir, Err: fmt.Errorf("kustomize resource %s: %w", r.CurId(), err)})
			continue
		}
		dropEmptyAnnotations(m)
		o := Object{File: dir, Doc: -1, Obj: &unstructured.Unstructured{Object: m}}
		src.place(&o, dir, origin, r)
		objs = append(objs, o)
	}
	return objs, errs
}

// dropEmptyAnnotations removes the annotations map that taking the origin
// annotation off may leave empty.
func dropEmptyAnnotations(m map[string]any) {
	md, _ := m["metadata"].(map[string]any)
	if a, ok := md["annotations"].(map[string]any); ok && len(a) == 0 {
		delete(md, "annotations")
	}
}

// sources are the source files of a build, parsed once each.
type sources map[string][]Object

// place points o at the document its resource was read from: the file
// of its origin, the document of the same kind and name, else the one
// document of that kind whose name is inside the resource's (namePrefix
// and nameSuffix keep it; the build no longer says what it renamed). Not
// Fixable: --fix does not edit the sources of a build.
func (s sources) place(o *Object, dir string, origin *resource.Origin, r *resource.Resource) {
	if origin == nil || origin.Path == "" || origin.Repo != "" {
		return
	}
	file := filepath.Join(dir, origin.Path)
	docs, ok := s[file]
	if !ok {
		if data, err := os.ReadFile(file); err == nil {
			docs, _ = parseYAML(source{file: file}, data)
		}
		s[file] = docs
	}
	kind, name := r.GetKind(), r.GetName()
	var renamed []Object
	for _, d := range docs {
		if d.Obj.GetKind() != kind {
			continue
		}
		if d.Obj.GetName() == name {
			renamed = []Object{d}
			break
		}
		if strings.Contains(name, d.Obj.GetName()) {
			renamed = append(renamed, d)
		}
	}
	if len(renamed) == 1 {
		d := renamed[0]
		o.File, o.Line, o.Doc, o.Root = d.File, d.Line, d.Doc, d.Root
	}
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
