// Package apitest checks lint findings against the real kube-apiserver.
package apitest

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/lint"
	"github.com/winkube/winkube/pkg/manifest"
)

var (
	client dynamic.Interface
	config *rest.Config
)

func TestMain(m *testing.M) {
	os.Exit(cptest.Main(m, func(_ *controlplane.ControlPlane, cfg *rest.Config) (func(), error) {
		var err error
		config = cfg
		client, err = dynamic.NewForConfig(cfg)
		return nil, err
	}))
}

var resources = map[string]schema.GroupVersionResource{
	"Deployment": {Group: "apps", Version: "v1", Resource: "deployments"},
	"Service":    {Version: "v1", Resource: "services"},
}

var unknownField = regexp.MustCompile(`unknown field "([^"]+)"`)

// The fields API-10 reports are exactly those kube-apiserver refuses when
// kubectl asks for strict field validation, path for path.
//
// rule: API-10
func TestUnknownFieldsAsTheAPIServerRefusesThem(t *testing.T) {
	if client == nil {
		t.Skip("integration test: needs the control plane (not in -short mode)")
	}
	objs, errs := manifest.Load([]string{"../testdata/golden/unknown-fields.yaml"}, manifest.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	target, err := lint.TargetFromClusterAt(v1alpha1.DefaultCluster(), kubeversion.DefaultMinor)
	if err != nil {
		t.Fatal(err)
	}
	reported := map[string][]string{}
	for _, f := range lint.New(target).Lint(objs).Findings {
		if f.Rule == "API-10" {
			path, _, _ := strings.Cut(f.Message, ": ")
			reported[f.Kind] = append(reported[f.Kind], path)
		}
	}
	for _, o := range objs {
		kind := o.Obj.GetKind()
		_, err := client.Resource(resources[kind]).Namespace("default").Create(context.Background(),
			&unstructured.Unstructured{Object: o.Obj.Object},
			metav1.CreateOptions{FieldValidation: "Strict", DryRun: []string{metav1.DryRunAll}})
		if err == nil || !strings.Contains(err.Error(), "strict decoding error") {
			t.Errorf("%s: kube-apiserver answered %v, want a strict decoding error", kind, err)
			continue
		}
		var refused []string
		for _, m := range unknownField.FindAllStringSubmatch(err.Error(), -1) {
			refused = append(refused, m[1])
		}
		got := reported[kind]
		slices.Sort(got)
		slices.Sort(refused)
		if !slices.Equal(got, refused) {
			t.Errorf("%s: lint reports %q, kube-apiserver refuses %q", kind, got, refused)
		}
	}
}
