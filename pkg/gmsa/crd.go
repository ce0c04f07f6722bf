// Package gmsa is GMSA for Windows pods as kubernetes-sigs/windows-gmsa
// provides it: the GMSACredentialSpec CRD (windows.k8s.io, cluster-scoped,
// the spec's JSON under `credspec`) and its admission webhook. The
// mutating webhook resolves securityContext.windowsOptions
// .gmsaCredentialSpecName (pod and containers) into gmsaCredentialSpec;
// the validating one refuses a name the pod's service account may not
// `use`, a spec that does not exist and contents that differ from the
// named spec's, in upstream's words. Upstream's webhook is a main package,
// so it cannot be imported; this package follows its webhook.go and
// kube_client.go (v0.13, commit 993de21) decision for decision.
package gmsa

import (
	_ "embed"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// The coordinates of the CRD (upstream's crdAPIGroup, crdAPIVersion,
// crdResourceName and crdContentsField).
const (
	Group    = "windows.k8s.io"
	Version  = "v1"
	Resource = "gmsacredentialspecs"
	Kind     = "GMSACredentialSpec"
	// ContentsField is the one field of a GMSACredentialSpec besides its
	// metadata: the credential spec itself.
	ContentsField = "credspec"
	// CRDName is the CustomResourceDefinition's name.
	CRDName = Resource + "." + Group
	// UseVerb is what RBAC must grant a pod's service account on a
	// GMSACredentialSpec (resourceNames: the spec) for the pod to name it.
	UseVerb = "use"
)

// GVR is the resource of GMSACredentialSpecs.
var GVR = schema.GroupVersionResource{Group: Group, Version: Version, Resource: Resource}

// crdYAML is upstream's admission-webhook/deploy/gmsa-crd.yml, unchanged.
//
//go:embed gmsa-crd.yaml
var crdYAML []byte

// CRDYAML is the CustomResourceDefinition as upstream publishes it.
func CRDYAML() []byte { return append([]byte(nil), crdYAML...) }

// CRD is the CustomResourceDefinition, ready for a server-side apply.
func CRD() (*unstructured.Unstructured, error) {
	var m map[string]any
	if err := yaml.Unmarshal(crdYAML, &m); err != nil {
		return nil, fmt.Errorf("the embedded GMSACredentialSpec CRD: %w", err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}
