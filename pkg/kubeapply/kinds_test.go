package kubeapply

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery/cached/memory"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/restmapper"
	clienttesting "k8s.io/client-go/testing"
)

// A kind that discovery did not list at the first look (a custom
// resource whose definition is Established, its group not yet in
// discovery) stays unknown to the cached mapper until forgetKinds; after
// it, the retry finds the kind.
func TestForgetKindsFindsAKindServedLater(t *testing.T) {
	disc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{}}
	disc.Resources = []*metav1.APIResourceList{{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: metav1.Verbs{"get"}},
	}}}
	a := &Applier{Mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))}
	gadget := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.org/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g1"}}}
	if _, err := a.kindOf(gadget); !meta.IsNoMatchError(err) {
		t.Fatalf("kindOf before the group is served = %v, want no match", err)
	}
	disc.Resources = append(disc.Resources, &metav1.APIResourceList{GroupVersion: "example.org/v1", APIResources: []metav1.APIResource{
		{Name: "gadgets", Kind: "Gadget", Namespaced: true, Verbs: metav1.Verbs{"get"}},
	}})
	if _, err := a.kindOf(gadget); !meta.IsNoMatchError(err) {
		t.Fatalf("kindOf from the cache = %v; the test no longer shows why forgetKinds is needed", err)
	}
	a.forgetKinds()
	k, err := a.kindOf(gadget)
	if err != nil || k.GVR.Resource != "gadgets" || !k.Namespaced {
		t.Fatalf("kindOf after forgetKinds = %+v, %v; want the namespaced gadgets", k, err)
	}
}
