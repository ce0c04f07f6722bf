package install

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/winkube/winkube/pkg/webhook"
)

var chartDir = filepath.Join("..", "..", "..", "deploy", "helm", "winkube-webhook")

// renderChart renders the chart as `helm template winkube-webhook -n
// winkube-system` does and returns its objects by "Kind/name".
func renderChart(t *testing.T, values map[string]any) map[string]*unstructured.Unstructured {
	t.Helper()
	chrt, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	opts := chartutil.ReleaseOptions{Name: Name, Namespace: DefaultNamespace, Revision: 1, IsInstall: true}
	vals, err := chartutil.ToRenderValues(chrt, values, opts, chartutil.DefaultCapabilities.Copy())
	if err != nil {
		t.Fatal(err)
	}
	files, err := engine.Engine{}.Render(chrt, vals)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	out := map[string]*unstructured.Unstructured{}
	for _, n := range names {
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewBufferString(files[n]), 4096)
		for {
			u := &unstructured.Unstructured{}
			err := dec.Decode(&u.Object)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v\n%s", n, err, files[n])
			}
			if len(u.Object) == 0 {
				continue
			}
			out[u.GetKind()+"/"+u.GetName()] = u
		}
	}
	return out
}

func typed[T any](t *testing.T, u *unstructured.Unstructured, into *T) *T {
	t.Helper()
	if u == nil {
		t.Fatalf("missing %T", into)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
		t.Fatal(err)
	}
	return into
}

// The chart's webhook configurations are the ones `winkube webhook
// install` registers: same rules, exclusions, timeouts and paths.
func TestChartMatchesInstall(t *testing.T) {
	objs := renderChart(t, nil)
	for _, want := range []string{"ServiceAccount/", "ClusterRole/", "ClusterRoleBinding/", "Deployment/", "Service/", "MutatingWebhookConfiguration/", "ValidatingWebhookConfiguration/"} {
		if objs[want+Name] == nil {
			t.Errorf("chart renders no %s%s", want, Name)
		}
	}
	port := int32(443)
	cc := admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: DefaultNamespace, Name: Name, Port: &port}}
	wantMut, wantVal := webhook.Configurations(Name, DefaultNamespace, cc, DefaultTimeoutSeconds, DefaultFailurePolicy)

	mut := typed(t, objs["MutatingWebhookConfiguration/"+Name], &admissionregistrationv1.MutatingWebhookConfiguration{})
	val := typed(t, objs["ValidatingWebhookConfiguration/"+Name], &admissionregistrationv1.ValidatingWebhookConfiguration{})
	secret := typed(t, objs["Secret/"+SecretName], &corev1.Secret{})
	ca := mut.Webhooks[0].ClientConfig.CABundle
	if string(val.Webhooks[0].ClientConfig.CABundle) != string(ca) || string(secret.Data[CAFile]) != string(ca) {
		t.Error("the configurations and the Secret hold different CAs")
	}
	// kube-apiserver dials the Service name with the caBundle as its roots.
	if err := (&Certs{CA: ca, Cert: secret.Data[CertFile], Key: secret.Data[KeyFile]}).Check(ServiceHosts(DefaultNamespace)[:1], time.Now()); err != nil {
		t.Errorf("chart certificate: %v", err)
	}
	for i := range mut.Webhooks {
		mut.Webhooks[i].ClientConfig.CABundle = nil
	}
	for i := range val.Webhooks {
		val.Webhooks[i].ClientConfig.CABundle = nil
	}
	if d := cmp.Diff(wantMut.Webhooks, mut.Webhooks); d != "" {
		t.Errorf("chart's mutating webhooks differ from webhook.Configurations (-want +chart):\n%s", d)
	}
	if d := cmp.Diff(wantVal.Webhooks, val.Webhooks); d != "" {
		t.Errorf("chart's validating webhooks differ from webhook.Configurations (-want +chart):\n%s", d)
	}

	dep := typed(t, objs["Deployment/"+Name], &appsv1.Deployment{})
	// rule: SCH-1 — the webhook's Linux image runs on Linux nodes only
	if dep.Spec.Template.Spec.NodeSelector[corev1.LabelOSStable] != "linux" || *dep.Spec.Replicas != 2 {
		t.Errorf("deployment: nodeSelector %v replicas %d", dep.Spec.Template.Spec.NodeSelector, *dep.Spec.Replicas)
	}
	if got := dep.Spec.Template.Spec.Containers[0].Image; got != "ghcr.io/winkube/winkube:latest" {
		t.Errorf("image = %q", got)
	}
}

func TestChartWithCertManager(t *testing.T) {
	objs := renderChart(t, map[string]any{"certManager": map[string]any{"enabled": true}})
	if objs["Secret/"+SecretName] != nil {
		t.Error("a generated Secret beside cert-manager's")
	}
	if objs["Issuer/"+IssuerName] == nil || objs["Certificate/"+Name] == nil {
		t.Fatalf("no Issuer or Certificate: %v", keysOf(objs))
	}
	for _, k := range []string{"MutatingWebhookConfiguration/", "ValidatingWebhookConfiguration/"} {
		u := objs[k+Name]
		if u.GetAnnotations()[InjectCAAnnotation] != DefaultNamespace+"/"+Name {
			t.Errorf("%s annotations = %v", k, u.GetAnnotations())
		}
	}
	// The chart's Certificate names what install's does.
	want := certificateNames(t, Options{Namespace: DefaultNamespace, CertManager: true}.certificate())
	if got := certificateNames(t, objs["Certificate/"+Name]); !cmp.Equal(want, got) {
		t.Errorf("dnsNames = %v, want %v", got, want)
	}
}

func certificateNames(t *testing.T, u *unstructured.Unstructured) []string {
	t.Helper()
	names, _, err := unstructured.NestedStringSlice(u.Object, "spec", "dnsNames")
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func keysOf(m map[string]*unstructured.Unstructured) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
