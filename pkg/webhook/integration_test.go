// The integration tests are an external test package: they run the
// emulated nodes (pkg/node), which import this package for the webhook
// that winkube's own image serves.
package webhook_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/controlplane/cptest"
	emulated "github.com/winkube/winkube/pkg/node"
	"github.com/winkube/winkube/pkg/webhook"
	"github.com/winkube/winkube/pkg/webhook/install"
)

// One control plane, with the default cluster's emulated nodes (a Linux
// node, two Windows 2019 nodes and a Windows 2022 node, tainted
// os=windows:NoSchedule), and one webhook server on 127.0.0.1 registered
// with it, serve the integration tests.
var (
	restConfig *rest.Config
	client     kubernetes.Interface
	serving    *testServer
)

// Windows builds of the default cluster's nodes.
const (
	build2019 = "10.0.17763"
	build2022 = "10.0.20348"
)

// webhookNamespace is the namespace the test webhook claims as its own;
// the configurations exclude it like kube-system.
const webhookNamespace = "winkube-system"

func TestMain(m *testing.M) {
	os.Exit(cptest.Main(m, func(cp *controlplane.ControlPlane, cfg *rest.Config) (func(), error) {
		restConfig = cfg
		client = kubernetes.NewForConfigOrDie(cfg)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		agent, err := emulated.Start(ctx, emulated.Options{Config: cp.RESTConfig(), Cluster: v1alpha1.DefaultCluster()})
		if err != nil {
			return nil, fmt.Errorf("start node agent: %w", err)
		}
		select {
		case <-agent.Ready():
		case <-ctx.Done():
			agent.Close()
			return nil, fmt.Errorf("nodes not Ready: %v", agent.NotReady())
		}
		s, err := startServer(ctx, "winkube-webhook-test", admissionregistrationv1.Ignore)
		if err != nil {
			agent.Close()
			return nil, err
		}
		serving = s
		return func() { s.stop(); agent.Close() }, nil
	}))
}

func needCluster(t *testing.T) {
	t.Helper()
	if client == nil {
		t.Skip("integration test: needs the control plane (not in -short mode)")
	}
}

// testServer is a webhook server and its registration.
type testServer struct {
	name   string
	url    string
	ca     []byte
	cancel context.CancelFunc
	done   chan error
	h      *webhook.Handler
}

// startServer serves a handler that knows the cluster on 127.0.0.1:0
// with a certificate from a fresh CA, registers the configurations and
// waits until the API server calls it.
func startServer(ctx context.Context, name string, policy admissionregistrationv1.FailurePolicyType) (*testServer, error) {
	certs, err := install.NewCerts([]string{"127.0.0.1"})
	if err != nil {
		return nil, err
	}
	caPEM := certs.CA
	cert, err := certs.TLS()
	if err != nil {
		return nil, err
	}
	h, err := webhook.NewHandler(webhook.Options{Client: client})
	if err != nil {
		return nil, err
	}
	if err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(context.Context) (bool, error) { return h.Ready(), nil }); err != nil {
		h.Close()
		return nil, fmt.Errorf("webhook caches not synced: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		h.Close()
		return nil, err
	}
	sctx, cancel := context.WithCancel(context.Background())
	s := &testServer{name: name, url: "https://" + ln.Addr().String(), ca: caPEM, cancel: cancel, done: make(chan error, 1), h: h}
	go func() { s.done <- webhook.ServeListener(sctx, ln, cert, h) }()
	if err := s.register(ctx, policy); err != nil {
		s.stop()
		return nil, err
	}
	// The API server reads configurations from an informer: wait until a
	// dry-run pod is placed.
	err = wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		pod, err := client.CoreV1().Pods("default").Create(ctx, windowsPod("probe", "mcr.microsoft.com/windows/servercore:ltsc2022"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err == nil && pod.Annotations[webhook.PlacedByAnnotation] != "", nil
	})
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("the API server never called the webhook: %w", err)
	}
	return s, nil
}

func (s *testServer) register(ctx context.Context, policy admissionregistrationv1.FailurePolicyType) error {
	mut, val := webhook.Configurations(s.name, webhookNamespace, admissionregistrationv1.WebhookClientConfig{URL: &s.url, CABundle: s.ca}, 0, policy)
	if _, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, mut, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("register mutating webhook: %w", err)
	}
	if _, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, val, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("register validating webhook: %w", err)
	}
	return nil
}

// shutdown stops the server but leaves it registered.
func (s *testServer) shutdown() error {
	s.cancel()
	err := <-s.done
	s.done <- err // stop may read it again
	s.h.Close()
	return err
}

func (s *testServer) stop() {
	ctx := context.Background()
	_ = client.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, s.name, metav1.DeleteOptions{})
	_ = client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, s.name, metav1.DeleteOptions{})
	_ = s.shutdown()
}

func windowsPod(name, image string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}},
	}
}

// warnings collects the admission warnings the API server passes on, as
// kubectl prints them.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warnings) contain(substr string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.list {
		if strings.Contains(s, substr) {
			return true
		}
	}
	return false
}

func warningClient(t *testing.T) (kubernetes.Interface, *warnings) {
	t.Helper()
	w := &warnings{}
	cfg := rest.CopyConfig(restConfig)
	cfg.WarningHandler = w
	return kubernetes.NewForConfigOrDie(cfg), w
}

// The API server calls the webhook for a pod with no selector: it lands
// on the 2022 node's build, tolerates the Windows taint, and says why.
// rule: IMG-2, SCH-3, SCH-5
func TestAdmissionPlacesPods(t *testing.T) {
	needCluster(t)
	ns := cptest.Namespace(t, client)
	ctx := context.Background()
	pod, err := client.CoreV1().Pods(ns).Create(ctx, windowsPod("iis", "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pod.Spec.NodeSelector[corev1.LabelOSStable] != "windows" || pod.Spec.OS == nil || pod.Spec.OS.Name != corev1.Windows {
		t.Errorf("selector %v os %+v", pod.Spec.NodeSelector, pod.Spec.OS)
	}
	terms := requiredTerms(pod.Spec.Affinity)
	if len(terms) != 1 || len(terms[0].MatchExpressions) != 1 || strings.Join(terms[0].MatchExpressions[0].Values, ",") != build2022 {
		t.Errorf("affinity terms %+v, want windows-build In (%s)", terms, build2022)
	}
	tolerated := false
	for _, tol := range pod.Spec.Tolerations {
		tolerated = tolerated || (tol.Key == "os" && tol.Value == "windows" && tol.Effect == corev1.TaintEffectNoSchedule)
	}
	if !tolerated {
		t.Errorf("tolerations %+v lack os=windows:NoSchedule", pod.Spec.Tolerations)
	}
	if note := pod.Annotations[webhook.PlacedByAnnotation]; !strings.Contains(note, "IMG-2") || !strings.Contains(note, "SCH-3") {
		t.Errorf("annotation %q", note)
	}

	linux, err := client.CoreV1().Pods(ns).Create(ctx, windowsPod("web", "nginx:1.27"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if linux.Spec.NodeSelector[corev1.LabelOSStable] != "linux" || linux.Spec.Affinity != nil {
		t.Errorf("linux pod: selector %v affinity %+v", linux.Spec.NodeSelector, linux.Spec.Affinity)
	}
}

// The API server hands the refusal to the client with the rule's message.
// rule: IMG-2, LIM-1
func TestAdmissionRefuses(t *testing.T) {
	needCluster(t)
	ns := cptest.Namespace(t, client)
	ctx := context.Background()
	pod := windowsPod("pinned", "mcr.microsoft.com/windows/servercore:ltsc2022")
	pod.Spec.NodeSelector = map[string]string{corev1.LabelWindowsBuild: build2019}
	_, err := client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), `admission webhook "placement.winkube.io" denied the request`) || !strings.Contains(err.Error(), "IMG-2") {
		t.Errorf("err = %v, want the IMG-2 refusal", err)
	}

	dep := deployment("mixed", "mcr.microsoft.com/windows/servercore:ltsc2019", "nginx")
	_, err = client.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), `admission webhook "rules.winkube.io" denied the request`) || !strings.Contains(err.Error(), "LIM-1") {
		t.Errorf("err = %v, want the LIM-1 refusal", err)
	}
}

// Warnings reach the client: the LIM-3 warning for a Windows Deployment.
// rule: LIM-3
func TestAdmissionWarnings(t *testing.T) {
	needCluster(t)
	ns := cptest.Namespace(t, client)
	c, w := warningClient(t)
	dep := deployment("dns", "mcr.microsoft.com/windows/servercore:ltsc2022")
	dep.Spec.Template.Spec.DNSPolicy = corev1.DNSClusterFirstWithHostNet
	if _, err := c.AppsV1().Deployments(ns).Create(context.Background(), dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !w.contain("LIM-3") {
		t.Errorf("warnings %q lack LIM-3", w.list)
	}
}

// kube-system and the webhook's own namespace are never touched.
// rule: SCH-3
func TestAdmissionExcludesSystemNamespaces(t *testing.T) {
	needCluster(t)
	ctx := context.Background()
	pod := windowsPod("", "mcr.microsoft.com/windows/servercore:ltsc2022")
	pod.GenerateName = "winkube-webhook-test-"
	created, err := client.CoreV1().Pods(metav1.NamespaceSystem).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Fatal(err)
	}
	if created.Annotations[webhook.PlacedByAnnotation] != "" || created.Spec.NodeSelector != nil {
		t.Errorf("kube-system pod was placed: %v %v", created.Annotations, created.Spec.NodeSelector)
	}
}

// With failurePolicy Fail a stopped webhook blocks pods; with Ignore (the
// default) the API server admits them without it.
func TestAdmissionFailurePolicy(t *testing.T) {
	needCluster(t)
	ctx := context.Background()
	ns := cptest.Namespace(t, client)
	s, err := startServer(ctx, "winkube-webhook-stopped", admissionregistrationv1.Fail)
	if err != nil {
		t.Fatal(err)
	}
	defer s.stop()
	if err := s.shutdown(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	create := func(ctx context.Context) error {
		_, err := client.CoreV1().Pods(ns).Create(ctx, windowsPod("a", "mcr.microsoft.com/windows/servercore:ltsc2022"), dryRun)
		return err
	}
	waitCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	// The API server may not have read the new configuration yet.
	err = wait.PollUntilContextCancel(waitCtx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		err := create(ctx)
		return err != nil && strings.Contains(err.Error(), "failed calling webhook"), nil
	})
	if err != nil {
		t.Fatalf("Fail policy, webhook down: pods still admitted (last error %v)", create(ctx))
	}
	for _, name := range []string{s.name} {
		mut, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ignore := admissionregistrationv1.Ignore
		mut.Webhooks[0].FailurePolicy = &ignore
		if _, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Update(ctx, mut, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		val, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		val.Webhooks[0].FailurePolicy = &ignore
		if _, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, val, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The API server sees the update through its informer.
	err = wait.PollUntilContextCancel(waitCtx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		return create(ctx) == nil, nil
	})
	if err != nil {
		t.Errorf("Ignore policy, webhook down: pods still refused: %v", create(ctx))
	}
}

// requiredTerms are the required node affinity terms of a pod.
func requiredTerms(a *corev1.Affinity) []corev1.NodeSelectorTerm {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
}

func deployment(name string, images ...string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	var containers []corev1.Container
	for i, img := range images {
		containers = append(containers, corev1.Container{Name: fmt.Sprintf("c%d", i), Image: img})
	}
	replicas := int32(1)
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: containers},
			},
		},
	}
}

// Deployments with no selector run on nodes that can run their images:
// a 2022 image on the 2022 node, a 2019 image on a 2019 node, a Linux
// image on the Linux node, all through the emulated kubelets.
// rule: IMG-2, SCH-3, SCH-5
func TestAdmissionPodsRunWherePlaced(t *testing.T) {
	needCluster(t)
	ns := cptest.Namespace(t, client)
	ctx := context.Background()
	cases := map[string]struct{ image, os, build string }{
		"iis2022": {"mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022", "windows", build2022},
		"iis2019": {"mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019", "windows", build2019},
		"nginx":   {"nginx:1.27", "linux", ""},
	}
	for name, tc := range cases {
		if _, err := client.AppsV1().Deployments(ns).Create(ctx, deployment(name, tc.image), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for name, tc := range cases {
		var running *corev1.Pod
		err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
			if err != nil || len(pods.Items) == 0 {
				return false, nil
			}
			running = &pods.Items[0]
			return running.Status.Phase == corev1.PodRunning, nil
		})
		if err != nil {
			if running != nil {
				t.Errorf("%s: pod %s not Running: phase %s, node %q, conditions %+v", name, running.Name, running.Status.Phase, running.Spec.NodeName, running.Status.Conditions)
			} else {
				t.Errorf("%s: no pod", name)
			}
			continue
		}
		n, err := client.CoreV1().Nodes().Get(ctx, running.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n.Labels[corev1.LabelOSStable] != tc.os || n.Labels[corev1.LabelWindowsBuild] != tc.build {
			t.Errorf("%s: runs on %s (%s %s), want %s %s", name, n.Name, n.Labels[corev1.LabelOSStable], n.Labels[corev1.LabelWindowsBuild], tc.os, tc.build)
		}
	}
}
