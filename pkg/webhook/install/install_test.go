package install

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/winkube/winkube/pkg/controlplane/cptest"
	"github.com/winkube/winkube/pkg/webhook"
)

func newClient(t *testing.T) *Client {
	t.Helper()
	needCluster(t)
	c, err := NewClient(restConfig, &testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// testWriter sends progress lines to the test log.
type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// serveWebhook runs the real webhook on 127.0.0.1 with certificates from
// dir until the test ends, and returns its https URL.
func serveWebhook(t *testing.T, c *Client, dir string) string {
	t.Helper()
	certs, _, err := EnsureCerts(dir, []string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := certs.TLS()
	if err != nil {
		t.Fatal(err)
	}
	h, err := webhook.NewHandler(webhook.Options{Client: c.Core})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- webhook.ServeListener(ctx, ln, cert, h) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("webhook server: %v", err)
		}
		h.Close()
	})
	return "https://" + ln.Addr().String()
}

func windowsPod(ns string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "iis-", Namespace: ns},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "iis", Image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022",
		}}},
	}
}

// placed creates pods until kube-apiserver, which loads new webhook
// configurations a moment after they are written, has called the webhook
// for one (or until it is clear it does not), and returns the last pod.
func createPod(t *testing.T, c *Client, ns string, wantPlaced bool) *corev1.Pod {
	t.Helper()
	ctx := context.Background()
	var last *corev1.Pod
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := c.Core.CoreV1().Pods(ns).Create(ctx, windowsPod(ns), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return false, err
		}
		last = p
		_, placed := p.Annotations[webhook.PlacedByAnnotation]
		return placed == wantPlaced, nil
	})
	if err != nil {
		t.Fatalf("pod placed=%v never seen: %v (last pod annotations %v)", wantPlaced, err, last.Annotations)
	}
	return last
}

// TestInstallURLMode registers a webhook served on loopback with the real
// kube-apiserver, which then places a Windows pod that names no node; a
// second install changes nothing, uninstall stops the placement.
func TestInstallURLMode(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	dir := t.TempDir()
	url := serveWebhook(t, c, dir)
	ns := cptest.Namespace(t, c.Core)
	t.Cleanup(func() { _, _ = c.Uninstall(context.Background(), "") })

	res, err := c.Install(ctx, Options{URL: url}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.CertsCreated || len(res.Applied) != 2 {
		t.Errorf("install: certs created %v (the server's were there), applied %v", res.CertsCreated, res.Applied)
	}
	pod := createPod(t, c, ns, true)
	// rule: SCH-5, SCH-3 — an image that runs only on Windows gets the OS
	// selector and the Windows taint's toleration
	if pod.Spec.NodeSelector[corev1.LabelOSStable] != "windows" {
		t.Errorf("nodeSelector = %v", pod.Spec.NodeSelector)
	}
	tolerated := false
	for _, tol := range pod.Spec.Tolerations {
		tolerated = tolerated || (tol.Key == "os" && tol.Value == "windows")
	}
	if !tolerated {
		t.Errorf("tolerations = %v", pod.Spec.Tolerations)
	}

	// kube-system is excluded: the webhook never stands between the cluster and its system pods.
	sys, err := c.Core.CoreV1().Pods("kube-system").Create(ctx, windowsPod("kube-system"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || sys.Annotations[webhook.PlacedByAnnotation] != "" {
		t.Errorf("kube-system pod: err %v annotations %v", err, sys.Annotations)
	}

	again, err := c.Install(ctx, Options{URL: url}, dir)
	if err != nil || again.CertsCreated {
		t.Errorf("second install: %v, certs created %v", err, again.CertsCreated)
	}
	mut, err := c.Core.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, Name, metav1.GetOptions{})
	if err != nil || string(mut.Webhooks[0].ClientConfig.CABundle) != string(res.Certs.CA) {
		t.Errorf("configuration after the second install: %v", err)
	}

	removed, err := c.Uninstall(ctx, Name)
	if err != nil || len(removed) != 2 {
		t.Fatalf("uninstall: removed %v, err %v", removed, err)
	}
	createPod(t, c, ns, false)
	removed, err = c.Uninstall(ctx, Name)
	if err != nil || len(removed) != 0 {
		t.Errorf("second uninstall: removed %v, err %v", removed, err)
	}
}

// TestInstallInCluster applies the in-cluster objects, reuses the Secret's
// certificates on a second install, and removes everything, the namespace
// it created included.
func TestInstallInCluster(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	const ns = "winkube-install-test"
	o := Options{Namespace: ns, Image: "ghcr.io/winkube/winkube:test", Instance: "install-test"}
	t.Cleanup(func() { _, _ = c.Uninstall(context.Background(), "install-test") })
	res, err := c.Install(ctx, o, "")
	if err != nil {
		t.Fatal(err)
	}
	if !res.CertsCreated || len(res.Applied) != 9 {
		t.Errorf("first install: certs created %v, applied %d: %v", res.CertsCreated, len(res.Applied), res.Applied)
	}
	secret, err := c.Core.CoreV1().Secrets(ns).Get(ctx, SecretName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	val, err := c.Core.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, "install-test", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(val.Webhooks[0].ClientConfig.CABundle) != string(secret.Data[CAFile]) {
		t.Error("caBundle is not the Secret's CA")
	}
	if svc := val.Webhooks[0].ClientConfig.Service; svc == nil || svc.Namespace != ns || svc.Name != Name {
		t.Errorf("clientConfig.service = %+v", svc)
	}
	again, err := c.Install(ctx, o, "")
	if err != nil || again.CertsCreated {
		t.Errorf("second install: %v, certs created %v (the Secret's are valid)", err, again.CertsCreated)
	}

	removed, err := c.Uninstall(ctx, "install-test")
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 9 || removed[len(removed)-1] != "Namespace "+ns {
		t.Errorf("removed %v, want all 9 objects, the namespace last", removed)
	}
	if n, err := c.Core.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err == nil && n.DeletionTimestamp == nil {
		t.Errorf("namespace %s not being deleted", ns)
	} else if err != nil && !apierrors.IsNotFound(err) {
		t.Error(err)
	}
}

// A namespace that existed before install is used, never deleted.
func TestInstallKeepsForeignNamespace(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	ns := cptest.Namespace(t, c.Core)
	o := Options{Namespace: ns, Image: "ghcr.io/winkube/winkube:test", Instance: "foreign-test"}
	t.Cleanup(func() { _, _ = c.Uninstall(context.Background(), "foreign-test") })
	res, err := c.Install(ctx, o, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Applied {
		if strings.HasPrefix(a, "Namespace ") {
			t.Errorf("applied %s", a)
		}
	}
	removed, err := c.Uninstall(ctx, "foreign-test")
	if err != nil || len(removed) != 8 {
		t.Errorf("removed %v, err %v", removed, err)
	}
	if n, err := c.Core.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil || n.DeletionTimestamp != nil {
		t.Errorf("namespace %s: err %v, deleting %v", ns, err, n.DeletionTimestamp)
	}
}
