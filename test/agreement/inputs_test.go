package agreement

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/manifest"
)

// repoRoot is the repository, two levels up from test/agreement.
var repoRoot = filepath.Join("..", "..")

// inputSets are the workloads every command is shown: the examples users
// copy, lint's rule and golden testdata, and the webhook's placement
// manifest (the e2e test applies it through `up --webhook`).
var inputSets = []string{
	"examples",
	"pkg/lint/testdata/rules",
	"pkg/lint/testdata/golden",
	"test/e2e/testdata/webhook-placement.yaml",
}

// input is one file of an input set, loaded.
type input struct {
	file string
	objs []manifest.Object
}

// loadInputs loads every YAML file of the input sets, one input per file,
// without the winkube.io/ignore annotation: the webhook and doctor do not
// read it, so lint must not either for the comparison.
func loadInputs(t *testing.T) []input {
	t.Helper()
	var files []string
	for _, set := range inputSets {
		p := filepath.Join(repoRoot, set)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			found, _ := filepath.Glob(filepath.Join(p, "*.yaml"))
			files = append(files, found...)
			continue
		}
		files = append(files, p)
	}
	sort.Strings(files)
	var out []input
	for _, f := range files {
		objs, _ := manifest.Load([]string{f}, manifest.Options{})
		for i := range objs {
			a := objs[i].Obj.GetAnnotations()
			if _, ok := a[annotations.Ignore]; ok {
				delete(a, annotations.Ignore)
				objs[i].Obj.SetAnnotations(a)
			}
		}
		out = append(out, input{file: f, objs: objs})
	}
	if len(out) < 50 {
		t.Fatalf("found only %d input files under %v", len(out), inputSets)
	}
	return out
}

// workload is one object that makes pods, typed.
type workload struct {
	kind      string
	namespace string
	name      string
	labels    map[string]string
	// raw is the object as JSON, the way an AdmissionRequest carries it.
	raw  []byte
	spec *corev1.PodSpec
}

// key names the object the way lint and doctor do.
func (w *workload) key() string { return objectKey(w.kind, w.namespace, w.name) }

func objectKey(kind, namespace, name string) string {
	if namespace == "" {
		namespace = "default"
	}
	return kind + " " + namespace + "/" + name
}

// workloadsOf types the objects that make pods; others are skipped, as
// are objects that do not decode (lint reports those as input errors).
func workloadsOf(objs []manifest.Object) []*workload {
	var out []*workload
	for i := range objs {
		u := objs[i].Obj
		spec, labels, ok := podTemplate(u.GetKind(), u.Object)
		if !ok {
			continue
		}
		raw, err := u.MarshalJSON()
		if err != nil {
			continue
		}
		out = append(out, &workload{kind: u.GetKind(), namespace: u.GetNamespace(), name: u.GetName(),
			labels: labels, raw: raw, spec: spec})
	}
	return out
}

// podTemplate is the pod spec and pod labels of a workload kind.
func podTemplate(kind string, obj map[string]any) (*corev1.PodSpec, map[string]string, bool) {
	if kind == "Pod" {
		p := &corev1.Pod{}
		if runtime.DefaultUnstructuredConverter.FromUnstructured(obj, p) != nil {
			return nil, nil, false
		}
		return &p.Spec, p.Labels, true
	}
	read := templates[kind]
	if read == nil {
		return nil, nil, false
	}
	tmpl, ok := read(obj)
	if !ok {
		return nil, nil, false
	}
	return &tmpl.Spec, tmpl.Labels, true
}

// templates read the pod template of each workload kind the inputs use.
var templates = map[string]func(map[string]any) (*corev1.PodTemplateSpec, bool){
	"Deployment":  templateOf(func(o *appsv1.Deployment) *corev1.PodTemplateSpec { return &o.Spec.Template }),
	"DaemonSet":   templateOf(func(o *appsv1.DaemonSet) *corev1.PodTemplateSpec { return &o.Spec.Template }),
	"StatefulSet": templateOf(func(o *appsv1.StatefulSet) *corev1.PodTemplateSpec { return &o.Spec.Template }),
	"Job":         templateOf(func(o *batchv1.Job) *corev1.PodTemplateSpec { return &o.Spec.Template }),
}

func templateOf[T any](get func(*T) *corev1.PodTemplateSpec) func(map[string]any) (*corev1.PodTemplateSpec, bool) {
	return func(obj map[string]any) (*corev1.PodTemplateSpec, bool) {
		o := new(T)
		if runtime.DefaultUnstructuredConverter.FromUnstructured(obj, o) != nil {
			return nil, false
		}
		return get(o), true
	}
}

// runtimeClassesOf are the RuntimeClasses of an input (SCH-4).
func runtimeClassesOf(objs []manifest.Object) map[string]*nodev1.RuntimeClass {
	out := map[string]*nodev1.RuntimeClass{}
	for i := range objs {
		if objs[i].Obj.GetKind() != "RuntimeClass" {
			continue
		}
		rc := &nodev1.RuntimeClass{}
		if runtime.DefaultUnstructuredConverter.FromUnstructured(objs[i].Obj.Object, rc) == nil {
			out[rc.Name] = rc
		}
	}
	return out
}

// podOf is a pod the workload's controller makes, owned by it (doctor
// groups pods by their controller).
func (w *workload) podOf(node string, n int) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: w.namespace, Name: fmt.Sprintf("%s-%d", w.name, n), Labels: w.labels},
		Spec: *w.spec.DeepCopy()}
	if p.Namespace == "" {
		p.Namespace = "default"
	}
	if w.kind != "Pod" {
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{Kind: w.kind, Name: w.name, Controller: &yes}}
	} else {
		p.Name = w.name
	}
	p.Spec.NodeName = node
	return p
}
