package lint

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
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
		if got := unknownFieldFix(deployment, path); got != want {
			t.Errorf("%s: fix %q, want %q", path, got, want)
		}
	}
}
