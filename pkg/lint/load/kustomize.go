package load

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// renderKustomize builds the kustomization in dir in-process, as
// `kustomize build dir` would (default options: no plugins, root-only
// file loading), and returns its objects with File set to dir.
func renderKustomize(dir string) ([]Object, []error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, []error{&InputError{File: dir, Err: fmt.Errorf("kustomize build: %w", err)}}
	}
	var objs []Object
	var errs []error
	for _, r := range resMap.Resources() {
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
		objs = append(objs, Object{File: dir, Doc: -1, Obj: &unstructured.Unstructured{Object: m}})
	}
	return objs, errs
}
