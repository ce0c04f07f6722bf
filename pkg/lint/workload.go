package lint

import (
	"fmt"
	"reflect"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/lint/strict"
	"github.com/winkube/winkube/pkg/manifest"
)

// IgnoreAnnotation silences rules per object: "RULE-ID,RULE-ID".
const IgnoreAnnotation = annotations.Ignore

// object is what every check sees of one input object.
type object struct {
	src       *manifest.Object
	kind      string
	namespace string
	name      string
	ignore    map[string]bool
	// typ and unknown are the Go type the object was decoded into and the
	// fields of the input that type lacks (API-10).
	typ     reflect.Type
	unknown []string
}

// workload is an object that makes pods: a Pod or a controller with a pod
// template. Its spec is converted from unstructured exactly once.
type workload struct {
	object
	spec *corev1.PodSpec
	// path is the spec's field path: spec, spec.template.spec or
	// spec.jobTemplate.spec.template.spec.
	path *field.Path
	// specPath is path as the segments --fix needs.
	specPath []string
	// labels are the pod labels Services select on.
	labels map[string]string
	// podAnnotations are the pods' annotations, at metaPath (metadata or
	// the template's metadata).
	podAnnotations map[string]string
	metaPath       *field.Path
	// replicas is how many pods it runs; perNode for DaemonSets.
	replicas int
	perNode  bool
}

// workloadKinds maps each pod-making kind to its decoder.
var workloadKinds = map[string]func(*unstructured.Unstructured, *workload) error{
	"Pod":                   decodePod,
	"Deployment":            decodeDeployment,
	"ReplicaSet":            decodeReplicaSet,
	"ReplicationController": decodeReplicationController,
	"StatefulSet":           decodeStatefulSet,
	"DaemonSet":             decodeDaemonSet,
	"Job":                   decodeJob,
	"CronJob":               decodeCronJob,
}

// newObject reads the metadata every check needs.
func newObject(src *manifest.Object) object {
	u := src.Obj
	o := object{src: src, kind: u.GetKind(), namespace: u.GetNamespace(), name: u.GetName()}
	if o.namespace == "" && namespaced(o.kind) {
		o.namespace = "default"
	}
	if v, ok := u.GetAnnotations()[IgnoreAnnotation]; ok {
		o.ignore = map[string]bool{}
		for _, id := range strings.Split(v, ",") {
			if id = strings.ToUpper(strings.TrimSpace(id)); id != "" {
				o.ignore[id] = true
			}
		}
	}
	return o
}

// namespaced reports whether kind lives in a namespace; only the
// cluster-scoped kinds the linter reads are listed.
func namespaced(kind string) bool {
	switch kind {
	case "RuntimeClass", "Namespace", "Node", "ClusterRole", "ClusterRoleBinding",
		"CustomResourceDefinition", "PersistentVolume", "StorageClass", "PriorityClass",
		// kinds API-9 reports
		"PodSecurityPolicy", "IngressClass", "APIService", "CSIDriver", "CSINode", "VolumeAttachment",
		"CertificateSigningRequest", "FlowSchema", "PriorityLevelConfiguration",
		"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
		return false
	}
	return true
}

// decodeWorkload converts a pod-making object; ok is false for other kinds.
func decodeWorkload(src *manifest.Object) (*workload, bool, error) {
	decode, ok := workloadKinds[src.Obj.GetKind()]
	if !ok {
		return nil, false, nil
	}
	w := &workload{object: newObject(src), replicas: 1}
	if err := decode(src.Obj, w); err != nil {
		return nil, true, fmt.Errorf("decoding %s %s: %w", w.kind, w.name, err)
	}
	return w, true, nil
}

// convert fills into from u and keeps what API-10 reports: the fields of u
// that into's type does not have.
func (o *object) convert(u *unstructured.Unstructured, into any) error {
	unknown, err := strict.Convert(u, into)
	o.typ, o.unknown = reflect.TypeOf(into), unknown
	return err
}

func (w *workload) setTemplate(t *corev1.PodTemplateSpec, segments ...string) {
	w.spec = &t.Spec
	w.labels, w.podAnnotations = t.Labels, t.Annotations
	w.specPath = append(segments, "spec")
	w.path = field.NewPath(w.specPath[0], w.specPath[1:]...)
	w.metaPath = field.NewPath(segments[0], segments[1:]...).Child("metadata")
}

func replicas(r *int32) int {
	if r == nil {
		return 1
	}
	return int(*r)
}

func decodePod(u *unstructured.Unstructured, w *workload) error {
	var p corev1.Pod
	if err := w.convert(u, &p); err != nil {
		return err
	}
	w.spec, w.labels, w.podAnnotations = &p.Spec, p.Labels, p.Annotations
	w.metaPath = field.NewPath("metadata")
	w.specPath = []string{"spec"}
	w.path = field.NewPath("spec")
	return nil
}

func decodeDeployment(u *unstructured.Unstructured, w *workload) error {
	var d appsv1.Deployment
	if err := w.convert(u, &d); err != nil {
		return err
	}
	w.setTemplate(&d.Spec.Template, "spec", "template")
	w.replicas = replicas(d.Spec.Replicas)
	return nil
}

func decodeReplicaSet(u *unstructured.Unstructured, w *workload) error {
	var r appsv1.ReplicaSet
	if err := w.convert(u, &r); err != nil {
		return err
	}
	w.setTemplate(&r.Spec.Template, "spec", "template")
	w.replicas = replicas(r.Spec.Replicas)
	return nil
}

func decodeReplicationController(u *unstructured.Unstructured, w *workload) error {
	var r corev1.ReplicationController
	if err := w.convert(u, &r); err != nil {
		return err
	}
	if r.Spec.Template == nil {
		r.Spec.Template = &corev1.PodTemplateSpec{}
	}
	w.setTemplate(r.Spec.Template, "spec", "template")
	w.replicas = replicas(r.Spec.Replicas)
	return nil
}

func decodeStatefulSet(u *unstructured.Unstructured, w *workload) error {
	var s appsv1.StatefulSet
	if err := w.convert(u, &s); err != nil {
		return err
	}
	w.setTemplate(&s.Spec.Template, "spec", "template")
	w.replicas = replicas(s.Spec.Replicas)
	return nil
}

func decodeDaemonSet(u *unstructured.Unstructured, w *workload) error {
	var d appsv1.DaemonSet
	if err := w.convert(u, &d); err != nil {
		return err
	}
	w.setTemplate(&d.Spec.Template, "spec", "template")
	w.perNode = true
	return nil
}

func decodeJob(u *unstructured.Unstructured, w *workload) error {
	var j batchv1.Job
	if err := w.convert(u, &j); err != nil {
		return err
	}
	w.setTemplate(&j.Spec.Template, "spec", "template")
	w.replicas = replicas(j.Spec.Parallelism)
	return nil
}

func decodeCronJob(u *unstructured.Unstructured, w *workload) error {
	var c batchv1.CronJob
	if err := w.convert(u, &c); err != nil {
		return err
	}
	w.setTemplate(&c.Spec.JobTemplate.Spec.Template, "spec", "jobTemplate", "spec", "template")
	w.replicas = replicas(c.Spec.JobTemplate.Spec.Parallelism)
	return nil
}
