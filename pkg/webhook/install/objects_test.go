package install

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

func byKind(t *testing.T, objs []runtime.Object) map[string]runtime.Object {
	t.Helper()
	out := map[string]runtime.Object{}
	for _, o := range objs {
		u, err := toUnstructured(o)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := kindOf(u.GetKind()); !ok {
			t.Errorf("object of kind %q has no resource to apply it with", u.GetKind())
		}
		if u.GetLabels()[LabelManagedBy] != ManagedBy {
			t.Errorf("%s %s lacks the managed-by label Uninstall selects on: %v", u.GetKind(), u.GetName(), u.GetLabels())
		}
		out[u.GetKind()] = o
	}
	return out
}

func configurations(t *testing.T, objs map[string]runtime.Object) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration) {
	t.Helper()
	mut, ok1 := objs["MutatingWebhookConfiguration"].(*admissionregistrationv1.MutatingWebhookConfiguration)
	val, ok2 := objs["ValidatingWebhookConfiguration"].(*admissionregistrationv1.ValidatingWebhookConfiguration)
	if !ok1 || !ok2 || len(mut.Webhooks) == 0 || len(val.Webhooks) == 0 {
		t.Fatalf("configurations missing: %v %v", ok1, ok2)
	}
	return mut, val
}

// admits reports whether a webhook's namespaceSelector sends requests
// from namespace ns to the webhook (the API server sets the
// kubernetes.io/metadata.name label on every namespace).
func admits(t *testing.T, sel *metav1.LabelSelector, ns string) bool {
	t.Helper()
	if sel == nil {
		return true
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatal(err)
	}
	return s.Matches(labels.Set{corev1.LabelMetadataName: ns})
}

func TestObjectsInCluster(t *testing.T) {
	certs, err := NewCerts(ServiceHosts("winkube-system"))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Objects(Options{Image: "ghcr.io/winkube/winkube:v1", ServeArgs: []string{"--resolve-images=registry"}}, certs.CA, certs)
	if err != nil {
		t.Fatal(err)
	}
	kinds := byKind(t, objs)
	for _, k := range []string{"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Secret", "Deployment", "Service"} {
		if kinds[k] == nil {
			t.Errorf("no %s", k)
		}
	}
	if kinds["Issuer"] != nil || kinds["Certificate"] != nil {
		t.Error("cert-manager objects without cert-manager")
	}
	// The configurations come last, once what serves them exists.
	if u, _ := toUnstructured(objs[len(objs)-1]); !strings.HasSuffix(u.GetKind(), "WebhookConfiguration") {
		t.Errorf("last object is a %s", u.GetKind())
	}

	dep := kinds["Deployment"].(*appsv1.Deployment)
	pod := dep.Spec.Template.Spec
	// rule: SCH-1 — the Linux image of the webhook must not be sent to Windows nodes
	if pod.NodeSelector[corev1.LabelOSStable] != "linux" {
		t.Errorf("nodeSelector = %v", pod.NodeSelector)
	}
	if *dep.Spec.Replicas != 2 || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Errorf("replicas %d, pod security %+v", *dep.Spec.Replicas, pod.SecurityContext)
	}
	c := pod.Containers[0]
	args := strings.Join(c.Args, " ")
	for _, want := range []string{"webhook serve", "--listen=:8443", "--tls-cert-file=", "--tls-private-key-file=", "--resolve-images=registry"} {
		if !strings.Contains(args, want) {
			t.Errorf("args %q lack %q", args, want)
		}
	}
	if c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/healthz" || c.Resources.Requests.Cpu().IsZero() {
		t.Errorf("probes or resources missing: %+v", c)
	}
	svc := kinds["Service"].(*corev1.Service)
	if svc.Spec.Ports[0].Port != 443 || svc.Spec.Ports[0].TargetPort.IntValue() != ServePort {
		t.Errorf("service ports = %+v", svc.Spec.Ports)
	}
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(dep.Spec.Template.Labels)) {
		t.Errorf("service selector %v does not select the pods %v", svc.Spec.Selector, dep.Spec.Template.Labels)
	}
	secret := kinds["Secret"].(*corev1.Secret)
	if string(secret.Data[CAFile]) != string(certs.CA) || secret.Type != corev1.SecretTypeTLS {
		t.Errorf("secret = %s with keys %d", secret.Type, len(secret.Data))
	}

	mut, val := configurations(t, kinds)
	for _, w := range mut.Webhooks {
		checkWebhook(t, w.Name, w.ClientConfig, w.FailurePolicy, w.NamespaceSelector, certs.CA)
	}
	for _, w := range val.Webhooks {
		checkWebhook(t, w.Name, w.ClientConfig, w.FailurePolicy, w.NamespaceSelector, certs.CA)
	}
}

func checkWebhook(t *testing.T, name string, cc admissionregistrationv1.WebhookClientConfig, fp *admissionregistrationv1.FailurePolicyType, ns *metav1.LabelSelector, ca []byte) {
	t.Helper()
	if string(cc.CABundle) != string(ca) {
		t.Errorf("%s: caBundle is not the generated CA", name)
	}
	if cc.Service == nil || cc.Service.Name != Name || cc.Service.Namespace != "winkube-system" || cc.URL != nil {
		t.Errorf("%s: clientConfig = %+v", name, cc)
	}
	if fp == nil || *fp != admissionregistrationv1.Ignore {
		t.Errorf("%s: failurePolicy = %v, want Ignore by default", name, fp)
	}
	for _, excluded := range []string{"kube-system", "winkube-system"} {
		if admits(t, ns, excluded) {
			t.Errorf("%s: namespace %s is not excluded", name, excluded)
		}
	}
	if !admits(t, ns, "default") {
		t.Errorf("%s: namespace default is excluded", name)
	}
}

func TestObjectsURLMode(t *testing.T) {
	ca := []byte("-----BEGIN CERTIFICATE-----\n")
	objs, err := Objects(Options{URL: "https://127.0.0.1:9443", FailurePolicy: admissionregistrationv1.Fail}, ca, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 {
		t.Fatalf("got %d objects, want only the two configurations", len(objs))
	}
	mut, val := configurations(t, byKind(t, objs))
	ccs := []admissionregistrationv1.WebhookClientConfig{mut.Webhooks[0].ClientConfig, val.Webhooks[0].ClientConfig}
	for _, cc := range ccs {
		if cc.URL == nil || !strings.HasPrefix(*cc.URL, "https://127.0.0.1:9443") || cc.Service != nil || string(cc.CABundle) != string(ca) {
			t.Errorf("clientConfig = %+v", cc)
		}
	}
	if *mut.Webhooks[0].FailurePolicy != admissionregistrationv1.Fail {
		t.Errorf("failurePolicy = %v, want the one asked for", *mut.Webhooks[0].FailurePolicy)
	}
}

func TestObjectsCertManager(t *testing.T) {
	objs, err := Objects(Options{Image: "img", CertManager: true, Namespace: "hooks"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := byKind(t, objs)
	if kinds["Secret"] != nil || kinds["Issuer"] == nil || kinds["Certificate"] == nil {
		t.Fatalf("kinds = %v", keys(kinds))
	}
	cert := kinds["Certificate"].(*unstructured.Unstructured)
	names, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
	if len(names) == 0 || names[0] != "winkube-webhook.hooks.svc" {
		t.Errorf("dnsNames = %v", names)
	}
	mut, val := configurations(t, kinds)
	for _, m := range []metav1.ObjectMeta{mut.ObjectMeta, val.ObjectMeta} {
		if m.Annotations[InjectCAAnnotation] != "hooks/winkube-webhook" {
			t.Errorf("%s annotations = %v", m.Name, m.Annotations)
		}
	}
	if len(mut.Webhooks[0].ClientConfig.CABundle) != 0 {
		t.Error("caBundle set with cert-manager")
	}
}

func keys(m map[string]runtime.Object) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestOptionErrorsNameTheFlag(t *testing.T) {
	for _, url := range []string{"http://127.0.0.1:9443", "https://", "https://h:1/mutate"} {
		if _, err := Objects(Options{URL: url}, nil, nil); err == nil || !strings.Contains(err.Error(), "--url") {
			t.Errorf("--url %s: err = %v", url, err)
		}
	}
	if _, err := Objects(Options{}, nil, &Certs{}); err == nil || !strings.Contains(err.Error(), "--image") {
		t.Errorf("no image: err = %v", err)
	}
}
