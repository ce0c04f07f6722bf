package kubeapply

import (
	"encoding/json"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// The applied object carries the annotation kubectl apply writes: the
// object itself, without that annotation, as JSON and a newline.
func TestWithLastApplied(t *testing.T) {
	obj := &unstructured.Unstructured{}
	src := `
apiVersion: v1
kind: Service
metadata:
  name: web
  annotations:
    team: web
    kubectl.kubernetes.io/last-applied-configuration: stale
spec:
  ports: [{port: 80}]
`
	if err := yaml.Unmarshal([]byte(src), &obj.Object); err != nil {
		t.Fatal(err)
	}
	data, err := withLastApplied(obj)
	if err != nil {
		t.Fatal(err)
	}
	applied := &unstructured.Unstructured{}
	if err := json.Unmarshal(data, &applied.Object); err != nil {
		t.Fatal(err)
	}
	last := applied.GetAnnotations()[LastAppliedAnnotation]
	if last == "" || last[len(last)-1] != '\n' {
		t.Fatalf("last-applied = %q", last)
	}
	recorded := map[string]interface{}{}
	if err := json.Unmarshal([]byte(last), &recorded); err != nil {
		t.Fatal(err)
	}
	want := obj.DeepCopy()
	want.SetAnnotations(map[string]string{"team": "web"})
	if !reflect.DeepEqual(recorded, want.Object) {
		t.Errorf("recorded configuration\n%v\nwant\n%v", recorded, want.Object)
	}
	if obj.GetAnnotations()[LastAppliedAnnotation] != "stale" {
		t.Error("the input object was changed")
	}
}
