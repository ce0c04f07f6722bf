package strict

import (
	"errors"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The fix names the field meant: the same name in another case, a close
// spelling of a longer name, or the parent a key was indented under; a
// short key gets no guess.
//
// rule: API-10
func TestUnknownFieldFix(t *testing.T) {
	deployment := reflect.TypeOf(&appsv1.Deployment{})
	for path, want := range map[string]string{
		"spec.replica": `rename "replica" to "replicas"`,
		"spec.template.spec.containers[0].imagePullpolicy": `rename "imagePullpolicy" to "imagePullPolicy"`,
		"spec.template.spec.containers[0].ports[0].env":    `move "env" out of spec.template.spec.containers[0].ports[0]: it is a field of spec.template.spec.containers[0] (indented one level too deep?)`,
		"spec.template.spec.containers[0].ports[0].xy":     `remove "xy" or move it where it belongs; spec.template.spec.containers[0].ports[0] has no such field`,
		"colour":                           `remove "colour"; the object has no such field`,
		"spec.template.spec.nodeSelectors": `rename "nodeSelectors" to "nodeSelector"`,
	} {
		if got := UnknownFieldFix(deployment, path); got != want {
			t.Errorf("%s: fix %q, want %q", path, got, want)
		}
	}
}

// Convert fills the object and names the fields its type lacks, in the
// API server's notation, sorted.
//
// rule: API-10
func TestConvertUnknownFields(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web"}},
		"spec": map[string]any{
			"replica": int64(2),
			"template": map[string]any{"spec": map[string]any{"containers": []any{
				map[string]any{"name": "app", "image": "img", "ports": []any{map[string]any{"containerPort": int64(80), "env": []any{}}}},
			}}},
		},
	}}
	var d appsv1.Deployment
	unknown, err := Convert(u, &d)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"spec.replica", "spec.template.spec.containers[0].ports[0].env"}
	if !reflect.DeepEqual(unknown, want) || d.Name != "web" || d.Spec.Template.Spec.Containers[0].Image != "img" {
		t.Errorf("Convert = %v, %+v; want %v and the object filled in", unknown, d.ObjectMeta, want)
	}
}

// A value of the wrong type is named at its path, and a key indented
// under a map it belongs beside is said to be.
func TestConvertTypeError(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"spec": map[string]any{
			"nodeSelector": map[string]any{"tolerations": []any{map[string]any{"key": "os"}}},
			"containers":   []any{map[string]any{"name": "app", "image": "img"}},
		},
	}}
	var p corev1.Pod
	_, err := Convert(u, &p)
	var fe *FieldTypeError
	if !errors.As(err, &fe) {
		t.Fatalf("Convert = %v, want a FieldTypeError", err)
	}
	want := `spec.nodeSelector.tolerations: got a list, want a string; is "tolerations" indented one level too deep? It is a field of spec, not a key of nodeSelector`
	if fe.Error() != want {
		t.Errorf("error %q,\nwant  %q", fe.Error(), want)
	}
}
