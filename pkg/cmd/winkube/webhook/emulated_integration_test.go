package webhook

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/winkube/winkube/pkg/cluster"
	"github.com/winkube/winkube/pkg/webhook"
	"github.com/winkube/winkube/pkg/webhook/install"
)

// `webhook install` on a `winkube up` cluster: the emulated pods of
// winkube's image serve the webhook, and kube-apiserver's admission call
// reaches them through its egress and the pod network, so a Windows pod
// created without an OS selector is placed (IMG-2). Another image gets the
// one warning that admission will fail.
func TestInstallOnEmulatedCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts a cluster (not in -short mode)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := cluster.Up(ctx, cluster.Options{DataDir: t.TempDir(), Timeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)

	out, err := run(t, "install", "--kubeconfig", c.Kubeconfig(), "--replicas", "1")
	if err != nil || strings.Contains(out, "warning") {
		t.Fatalf("install: %v\n%s", err, out)
	}
	waitServing(t, ctx, cs)
	checkServingLog(t, ctx, cs)

	iis := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "iis"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "iis", Image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"}}},
	}
	waitAdmitting(t, ctx, cs, iis)
	pod, err := cs.CoreV1().Pods("default").Create(ctx, iis, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pod.Annotations[webhook.PlacedByAnnotation] == "" || pod.Spec.NodeSelector[corev1.LabelOSStable] != "windows" {
		t.Errorf("pod not placed by the webhook: annotations %v, nodeSelector %v", pod.Annotations, pod.Spec.NodeSelector)
	}

	out, err = run(t, "install", "--kubeconfig", c.Kubeconfig(), "--replicas", "1", "--image", "docker.io/library/nginx:1.27", "--failure-policy", "Fail")
	if err != nil || strings.Count(out, "warning:") != 1 || !strings.Contains(out, "every pod create") {
		t.Errorf("install of another image: %v; want one warning that pod creates are refused:\n%s", err, out)
	}
}

// waitServing waits for the webhook's pod to be Ready behind its Service.
func waitServing(t *testing.T, ctx context.Context, cs kubernetes.Interface) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		d, err := cs.AppsV1().Deployments(install.DefaultNamespace).Get(ctx, install.Name, metav1.GetOptions{})
		return err == nil && d.Status.ReadyReplicas > 0, nil
	})
	if err != nil {
		pods, _ := cs.CoreV1().Pods(install.DefaultNamespace).List(ctx, metav1.ListOptions{})
		for _, p := range pods.Items {
			t.Logf("pod %s on %q: %+v", p.Name, p.Spec.NodeName, p.Status.ContainerStatuses)
		}
		t.Fatalf("the webhook's Deployment never became ready: %v", err)
	}
}

// waitAdmitting waits until kube-apiserver's admission call reaches the
// webhook: a Ready pod is not yet an endpoint of its Service until the
// EndpointSlice controller has seen it, and with failurePolicy Ignore a
// create in between is admitted unplaced. Dry-run creates probe the path.
func waitAdmitting(t *testing.T, ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err == nil && got.Annotations[webhook.PlacedByAnnotation] != "", nil
	})
	if err != nil {
		t.Fatalf("kube-apiserver's admission calls never reached the webhook: %v", err)
	}
}

// checkServingLog finds `winkube webhook serve`'s startup line in the
// webhook pod's log: winkube itself runs there.
func checkServingLog(t *testing.T, ctx context.Context, cs kubernetes.Interface) {
	t.Helper()
	pods, err := cs.CoreV1().Pods(install.DefaultNamespace).List(ctx, metav1.ListOptions{LabelSelector: install.LabelName + "=" + install.Name})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("webhook pods: %v", err)
	}
	log, err := cs.CoreV1().Pods(install.DefaultNamespace).GetLogs(pods.Items[0].Name, &corev1.PodLogOptions{}).DoRaw(ctx)
	want := "Serving the winkube webhook on https://:8443 (cluster https://10.96.0.1:443, images from catalog, mode enforce)"
	if err != nil || !strings.Contains(string(log), want) {
		t.Errorf("log of %s: %v\n%s\nwant %q", pods.Items[0].Name, err, log, want)
	}
}
