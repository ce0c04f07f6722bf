package wardle_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregator "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/certs"
)

const (
	wardleImage = "registry.k8s.io/e2e-test-images/sample-apiserver:1.29.2"
	etcdImage   = "registry.k8s.io/etcd:3.6.8-0"
	apiService  = "v1alpha1.wardle.example.com"
	flunders    = "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders"
)

// The Aggregator conformance test's pod, as a user would deploy wardle:
// the sample-apiserver container with its serving certificate from a
// Secret and etcd on the pod's loopback, behind a Service and an
// APIService. The aggregator finds it Available and serves flunders from
// it: created, listed and deleted through kube-apiserver. Deleting the
// pod stops both programs and removes what they kept on the host.
func TestSampleAPIServerBehindTheAggregator(t *testing.T) {
	if client == nil {
		t.Skip("integration test: needs the control plane (not in -short mode)")
	}
	ctx := context.Background()
	before, running := privateDirs(t), programGoroutines()
	ns := newNamespace(t)
	ca := deploy(t, ns)
	agg := aggregator.NewForConfigOrDie(restConfig)
	_, err := agg.ApiregistrationV1().APIServices().Create(ctx, &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: apiService},
		Spec: apiregistrationv1.APIServiceSpec{
			Service:              &apiregistrationv1.ServiceReference{Namespace: ns, Name: "wardle", Port: ptr.To[int32](7443)},
			Group:                "wardle.example.com",
			Version:              "v1alpha1",
			CABundle:             ca,
			GroupPriorityMinimum: 2000,
			VersionPriority:      200,
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agg.ApiregistrationV1().APIServices().Delete(ctx, apiService, metav1.DeleteOptions{}) })

	var last *apiregistrationv1.APIService
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		last, _ = agg.ApiregistrationV1().APIServices().Get(ctx, apiService, metav1.GetOptions{})
		for _, c := range conditionsOf(last) {
			if c.Type == apiregistrationv1.Available {
				return c.Status == apiregistrationv1.ConditionTrue && c.Message == "all checks passed", nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("APIService not Available: %+v\nwardle log:\n%s\netcd log:\n%s", conditionsOf(last), logOf(t, ns, "wardle"), logOf(t, ns, "etcd"))
	}

	// As upstream's test: the group is served once a list succeeds (403
	// and 503 while wardle's admission and the aggregator's discovery
	// catch up).
	rest := client.CoreV1().RESTClient()
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := rest.Get().AbsPath(flunders).DoRaw(ctx)
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("flunders never listed: %v", err)
	}
	body := `{"apiVersion":"wardle.example.com/v1alpha1","kind":"Flunder","metadata":{"name":"first","namespace":"default"}}`
	var code int
	res := rest.Post().AbsPath(flunders).Body([]byte(body)).SetHeader("Content-Type", "application/json").Do(ctx)
	if res.StatusCode(&code); res.Error() != nil || code != 201 {
		t.Fatalf("create flunder: status %d, %v", code, res.Error())
	}
	if names := listFlunders(t); len(names) != 1 || names[0] != "first" {
		t.Errorf("flunders after create: %v", names)
	}
	if err := rest.Delete().AbsPath(flunders + "/first").Do(ctx).Error(); err != nil {
		t.Errorf("delete flunder: %v", err)
	}
	if names := listFlunders(t); len(names) != 0 {
		t.Errorf("flunders after delete: %v", names)
	}

	if err := client.CoreV1().Pods(ns).Delete(ctx, "wardle", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](1)}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().Pods(ns).Get(ctx, "wardle", metav1.GetOptions{})
		return apierrors.IsNotFound(err) && len(privateDirs(t)) <= len(before) && len(programGoroutines()) <= len(running), nil
	})
	if err != nil {
		t.Errorf("after the pod's deletion the programs remain: host directories %v (before: %v), %d goroutines of theirs (before: %d):\n%s",
			privateDirs(t), before, len(programGoroutines()), len(running), strings.Join(programGoroutines(), "\n\n"))
	}
}

// programGoroutines are the goroutines running the two programs' code
// (wardle's generic API server, the etcd program); the control plane's
// own etcd, in this process too, is not counted, nor the log health
// check's flusher, which k8s.io/apiserver starts once per process
// (healthz.LogHealthz) for every server it will ever run.
func programGoroutines() []string {
	buf := make([]byte, 8<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "healthz.(*log).Check") {
			continue
		}
		if strings.Contains(g, "k8s.io/apiserver/") || strings.Contains(g, "k8s.io/sample-apiserver/") ||
			strings.Contains(g, "/pkg/emu/wardle.") || strings.Contains(g, "/pkg/emu/etcd.") {
			out = append(out, g)
		}
	}
	return out
}

// deploy creates the Secret, the RBAC the wardle server needs to
// delegate authentication and authorization, its pod and Service. It
// returns the CA that signed the serving certificate.
func deploy(t *testing.T, ns string) []byte {
	t.Helper()
	ctx := context.Background()
	ca, err := certs.NewCA("wardle-ca")
	if err != nil {
		t.Fatal(err)
	}
	serving, err := ca.Sign(certs.Spec{CommonName: "wardle." + ns + ".svc", DNSNames: []string{"wardle." + ns + ".svc"}, Server: true})
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "wardle-tls"}, Data: map[string][]byte{"tls.crt": serving.CertPEM, "tls.key": serving.KeyPEM}}
	must(t)(client.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{}))
	sa := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: ns}}
	reader := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "wardle-reader-" + ns}, Rules: []rbacv1.PolicyRule{
		{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"namespaces"}},
		{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"*"}},
		{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"flowcontrol.apiserver.k8s.io"}, Resources: []string{"prioritylevelconfigurations", "flowschemas"}},
	}}
	must(t)(client.RbacV1().ClusterRoles().Create(ctx, reader, metav1.CreateOptions{}))
	for name, role := range map[string]string{"wardle-reader-" + ns: reader.Name, "wardle-delegator-" + ns: "system:auth-delegator"} {
		b := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Subjects: sa, RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role}}
		must(t)(client.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}))
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "wardle-auth-reader-" + ns}, Subjects: sa,
		RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "extension-apiserver-authentication-reader"}}
	must(t)(client.RbacV1().RoleBindings("kube-system").Create(ctx, rb, metav1.CreateOptions{}))
	t.Cleanup(func() {
		_ = client.RbacV1().ClusterRoles().Delete(ctx, reader.Name, metav1.DeleteOptions{})
		_ = client.RbacV1().ClusterRoleBindings().Delete(ctx, "wardle-reader-"+ns, metav1.DeleteOptions{})
		_ = client.RbacV1().ClusterRoleBindings().Delete(ctx, "wardle-delegator-"+ns, metav1.DeleteOptions{})
		_ = client.RbacV1().RoleBindings("kube-system").Delete(ctx, rb.Name, metav1.DeleteOptions{})
	})

	certDir := "/apiserver.local.config/certificates"
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "wardle", Labels: map[string]string{"app": "wardle"}},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{corev1.LabelOSStable: "linux"},
			Volumes:      []corev1.Volume{{Name: "certs", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret.Name}}}},
			Containers: []corev1.Container{{
				Name:  "wardle",
				Image: wardleImage,
				Args: []string{"--etcd-servers=http://127.0.0.1:2379", "--tls-cert-file=" + certDir + "/tls.crt", "--tls-private-key-file=" + certDir + "/tls.key",
					"--audit-log-path=-", "--audit-log-maxage=0", "--audit-log-maxbackup=0"},
				VolumeMounts: []corev1.VolumeMount{{Name: "certs", MountPath: certDir, ReadOnly: true}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Scheme: corev1.URISchemeHTTPS, Port: intstr.FromInt32(443), Path: "/readyz"}},
					PeriodSeconds: 1},
			}, {
				Name:    "etcd",
				Image:   etcdImage,
				Command: []string{"/usr/local/bin/etcd", "--listen-client-urls", "http://127.0.0.1:2379", "--advertise-client-urls", "http://127.0.0.1:2379"},
			}},
		},
	}
	must(t)(client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}))
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "wardle"}, Spec: corev1.ServiceSpec{
		Selector: pod.Labels, Ports: []corev1.ServicePort{{Port: 7443, TargetPort: intstr.FromInt32(443)}}}}
	must(t)(client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}))
	return ca.CertPEM
}

func listFlunders(t *testing.T) []string {
	t.Helper()
	raw, err := client.CoreV1().RESTClient().Get().AbsPath(flunders).SetHeader("Accept", "application/json").DoRaw(context.Background())
	if err != nil {
		t.Fatalf("list flunders: %v", err)
	}
	var list struct {
		Items []metav1.PartialObjectMetadata `json:"items"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("list flunders: %v in %s", err, raw)
	}
	var names []string
	for _, it := range list.Items {
		names = append(names, it.Name)
	}
	return names
}

func conditionsOf(s *apiregistrationv1.APIService) []apiregistrationv1.APIServiceCondition {
	if s == nil {
		return nil
	}
	return s.Status.Conditions
}

func logOf(t *testing.T, ns, container string) string {
	raw, err := client.CoreV1().Pods(ns).GetLogs("wardle", &corev1.PodLogOptions{Container: container}).DoRaw(context.Background())
	if err != nil {
		return err.Error()
	}
	return string(raw)
}

// privateDirs are the host directories the programs keep while they run.
func privateDirs(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, p := range []string{"winkube-etcd-*", "winkube-wardle-*"} {
		m, _ := filepath.Glob(filepath.Join(os.TempDir(), p))
		out = append(out, m...)
	}
	return out
}

func newNamespace(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	ns, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: strings.ToLower(t.Name())[:10] + "-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}) })
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatal("no default service account")
	}
	return ns.Name
}

// must fails the test on a create's error.
func must(t *testing.T) func(any, error) {
	return func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}
