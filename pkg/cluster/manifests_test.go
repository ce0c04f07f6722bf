package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/gmsa"
)

func writeManifest(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const goodManifests = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {a: "1"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
        resources: {limits: {cpu: 1, memory: 512Mi}}
        ports: [{containerPort: 80}]
`

func TestLoadManifestsAcceptsWhatKubectlApplies(t *testing.T) {
	path := writeManifest(t, t.TempDir(), "good.yaml", goodManifests)
	m, err := LoadManifests([]string{path}, false)
	if err != nil || len(m.Objects) != 2 {
		t.Fatalf("LoadManifests = %v, %v", m, err)
	}
	if m, err := LoadManifests(nil, false); err != nil || len(m.Objects) != 0 {
		t.Errorf("no inputs: %v, %v", m, err)
	}
}

// Every problem of every input is found at once, before anything starts,
// each with its file and line.
func TestLoadManifestsReportsEveryProblem(t *testing.T) {
	dir := t.TempDir()
	bad := map[string]struct{ text, want string }{
		"tabs.yaml":    {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: x\n", "tabs.yaml:4: yaml: found character that cannot start any token"},
		"binary.yaml":  {"\x7fELF\x02\x01\x01\x00\x00", "binary.yaml:1: yaml: control characters are not allowed"},
		"typo.yaml":    {"apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: web}\n", `typo.yaml:1: unknown kind Deploymnet: no matches for kind "Deploymnet" in version "apps/v1"`},
		"removed.yaml": {"apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: old}\n", "removed.yaml:1: unknown kind Deployment: no matches for kind \"Deployment\" in version \"extensions/v1beta1\" (extensions/v1beta1 is not served since Kubernetes 1.16)"},
		"field.yaml":   {"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replica: 2\n", `field.yaml:1: Deployment web: strict decoding error: unknown field "spec.replica"`},
		"type.yaml":    {"apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  ports: [{port: eighty}]\n", "type.yaml:1: Service web: "},
		"noname.yaml":  {"apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: x-}\n", "noname.yaml:1: ConfigMap has no metadata.name"},
		"custom.yaml":  {"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n", `custom.yaml:1: unknown kind Widget: no matches for kind "Widget" in version "example.com/v1" (no CustomResourceDefinition among the --apply inputs serves it)`},
	}
	paths := []string{filepath.Join(dir, "missing.yaml")}
	for name, c := range bad {
		paths = append(paths, writeManifest(t, dir, name, c.text))
	}
	paths = append(paths, writeManifest(t, dir, "good.yaml", goodManifests))
	_, err := LoadManifests(paths, false)
	if err == nil {
		t.Fatal("want an error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "missing.yaml: stat") || !strings.Contains(msg, "--apply: 9 problem(s), nothing started") {
		t.Errorf("error lacks the missing path or the count:\n%s", msg)
	}
	for name, c := range bad {
		if !strings.Contains(msg, filepath.Join(dir, c.want)) {
			t.Errorf("%s: error lacks %q:\n%s", name, c.want, msg)
		}
	}
	if strings.Contains(msg, "good.yaml") {
		t.Errorf("good.yaml reported:\n%s", msg)
	}
}

// A custom resource is accepted with its CustomResourceDefinition among the
// inputs, or when the data dir already holds a cluster (which may have it).
func TestLoadManifestsCustomResources(t *testing.T) {
	dir := t.TempDir()
	cr := writeManifest(t, dir, "widget.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 3}\n")
	if _, err := LoadManifests([]string{cr}, true); err != nil {
		t.Errorf("resumed cluster: %v", err)
	}
	crd := writeManifest(t, dir, "crd.yaml", `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`)
	if _, err := LoadManifests([]string{crd, cr}, false); err != nil {
		t.Errorf("with its CRD: %v", err)
	}
	v2 := writeManifest(t, dir, "widget-v2.yaml", "apiVersion: example.com/v2\nkind: Widget\nmetadata: {name: w}\n")
	if _, err := LoadManifests([]string{crd, v2}, false); err == nil || !strings.Contains(err.Error(), `"example.com/v2"`) {
		t.Errorf("a version the CRD does not serve: %v", err)
	}
}

// The repository's examples and the e2e tests' --apply inputs are what
// users apply first; none may be refused.
func TestLoadManifestsOfTheExamples(t *testing.T) {
	paths, _ := filepath.Glob("../../examples/*.yaml")
	paths = append(paths, "../../test/e2e/testdata/webhook-placement.yaml")
	if len(paths) < 2 {
		t.Fatalf("no examples found: %v", paths)
	}
	gmsaKind := gmsa.GVR.GroupVersion().WithKind(gmsa.Kind) // examples/gmsa.yaml is for up --gmsa
	for _, path := range paths {
		if _, err := LoadManifests([]string{path}, false, gmsaKind); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	if _, err := LoadManifests([]string{"../../examples/gmsa.yaml"}, false); err == nil || !strings.Contains(err.Error(), "winkube up --gmsa installs its CustomResourceDefinition") {
		t.Errorf("gmsa.yaml without --gmsa's CRD: %v", err)
	}
}
