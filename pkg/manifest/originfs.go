package manifest

import (
	"path/filepath"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// originAnnotations is the kustomization buildMetadata option that keeps
// each resource's source file in config.kubernetes.io/origin.
const originAnnotations = "originAnnotations"

// originFS is the disk as kustomize reads it, except that the top
// kustomization of the build asks for origin annotations, which tell
// where each resource came from.
type originFS struct {
	filesys.FileSystem
	root string // the build's directory, absolute
	// userWantsOrigin: the kustomization asks for the annotations itself,
	// so they stay on the objects.
	userWantsOrigin bool
}

func (f *originFS) ReadFile(path string) ([]byte, error) {
	data, err := f.FileSystem.ReadFile(path)
	if err != nil || renderKind(filepath.Base(path)) != "kustomize" || absPath(filepath.Dir(path)) != f.root {
		return data, err
	}
	var k map[string]any
	if yaml.Unmarshal(data, &k) != nil || k == nil {
		return data, nil // kustomize reports it
	}
	meta, _ := k["buildMetadata"].([]any)
	for _, m := range meta {
		if m == originAnnotations {
			f.userWantsOrigin = true
			return data, nil
		}
	}
	k["buildMetadata"] = append(meta, originAnnotations)
	out, err := yaml.Marshal(k)
	if err != nil {
		return data, nil
	}
	return out, nil
}
