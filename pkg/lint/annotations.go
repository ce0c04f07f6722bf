package lint

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/manifest"
	"github.com/winkube/winkube/pkg/windows"
)

// checkAnnotations applies the WK rules to a workload: the winkube
// annotations of its pods (WK-1 … WK-6, in the words the emulated node
// refuses them with) and those on a controller's own metadata, which
// reach no pod (WK-7).
func (r *run) checkAnnotations(w *workload) {
	for _, v := range windows.PodAnnotationViolations(w.podAnnotations, w.metaPath) {
		r.reportViolation(&w.object, v)
	}
	if w.kind == "Pod" {
		return
	}
	for _, v := range windows.MisplacedAnnotationViolations(w.src.Obj.GetAnnotations(), field.NewPath("metadata"), w.metaPath) {
		r.reportViolation(&w.object, v)
	}
}

// checkIgnore reports items of an object's winkube.io/ignore that name no
// rule (WK-8).
func (r *run) checkIgnore(src *manifest.Object) {
	vs := windows.IgnoreViolations(src.Obj.GetAnnotations(), field.NewPath("metadata"))
	if len(vs) == 0 {
		return
	}
	o := newObject(src)
	for _, v := range vs {
		r.reportViolation(&o, v)
	}
}
