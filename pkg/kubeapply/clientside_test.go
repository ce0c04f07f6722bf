package kubeapply

import (
	"encoding/json"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/kubectl/pkg/util"
	"sigs.k8s.io/yaml"
)

// The created object carries the annotation kubectl apply writes (upstream's
// own function computes the expectation: the object without the annotation,
// nulls included), and the object itself has its nulls pruned, as kubectl
// creates it.
func TestCreateBodyIsKubectlApplys(t *testing.T) {
	src := `
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
  resourceVersion: "42"
  labels: null
  annotations:
    team: web
    kubectl.kubernetes.io/last-applied-configuration: stale
spec:
  selector: {app: web, tier: null}
  ports: [{port: 80, name: null}]
`
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(src), &obj.Object); err != nil {
		t.Fatal(err)
	}
	want, err := util.GetModifiedConfiguration(obj.DeepCopy(), false, unstructured.UnstructuredJSONScheme)
	if err != nil {
		t.Fatal(err)
	}
	data, err := createBody(obj.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	created := &unstructured.Unstructured{}
	if err := json.Unmarshal(data, &created.Object); err != nil {
		t.Fatal(err)
	}
	if got := created.GetAnnotations()[corev1.LastAppliedConfigAnnotation]; got != string(want) {
		t.Errorf("last-applied annotation\n%s\nwant kubectl's\n%s", got, want)
	}
	if created.GetAnnotations()["team"] != "web" || created.GetResourceVersion() != "" {
		t.Errorf("created object's metadata: %v", created.Object["metadata"])
	}
	wantSpec := map[string]any{"selector": map[string]any{"app": "web"}, "ports": []any{map[string]any{"port": float64(80)}}}
	if _, ok := created.Object["metadata"].(map[string]any)["labels"]; ok || !reflect.DeepEqual(created.Object["spec"], wantSpec) {
		t.Errorf("nulls not pruned: %v", created.Object)
	}
}
