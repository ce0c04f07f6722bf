package e2e

import (
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/internal/syncbuf"
)

// TestUpWebhook runs `winkube up --webhook` and applies Deployments that
// say nothing about where to run: each pod must land on a node that can
// run its images. Then the webhook commands on the same cluster as on a
// foreign one, and a restart after SIGKILL that must not be blocked by
// the webhook left registered.
func TestUpWebhook(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a whole cluster")
	}
	dir := t.TempDir()
	up := startUp(t, "--data-dir", dir, "--port", "0", "--webhook", "--apply", "test/e2e/testdata/webhook-placement.yaml")
	out := up.output()
	t.Logf("winkube up --webhook:\n%s", out)
	if !strings.Contains(out, "Admission webhook: https://127.0.0.1:") {
		t.Errorf("output lacks the webhook line")
	}
	checkWebhookPlacement(t, out)
	cs := clientFor(t, dir)
	checkWebhookRefusal(t, cs)
	checkWebhookCommands(t, cs, dir)

	// Killed, the in-process webhook cannot unregister; the configurations
	// fail open, and the next up without --webhook removes them.
	children := descendants(up.cmd.Process.Pid)
	up.stop(t, syscall.SIGKILL)
	waitGone(t, children, 5*time.Second)
	again := startUp(t, "--data-dir", dir, "--port", "0")
	cs = clientFor(t, dir)
	if _, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), "winkube-up", metav1.GetOptions{}); err == nil {
		t.Error("the killed run's webhook configuration is still registered after a restart without --webhook")
	}
	again.stop(t, syscall.SIGINT)
}

// checkWebhookPlacement reads the pod table of `up --apply`.
func checkWebhookPlacement(t *testing.T, out string) {
	t.Helper()
	want := map[string]string{"iis-2022-": "win2022-", "iis-2019-": "win2019-", "aspnet-multi-": "win20", "nginx-": "linux-"}
	seen := map[string]int{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		for prefix, node := range want {
			if !strings.HasPrefix(f[0], prefix) {
				continue
			}
			seen[prefix]++
			// rule: IMG-2, SCH-3, SCH-5 — the webhook adds the OS, the build
			// and the toleration, so a 2022 image runs only on the 2022 node
			if !strings.HasPrefix(f[1], node) || f[len(f)-2] != "Running" {
				t.Errorf("pod placed wrong (want node %s*, Running): %q", node, line)
			}
		}
	}
	if seen["iis-2022-"] != 1 || seen["iis-2019-"] != 1 || seen["aspnet-multi-"] != 2 || seen["nginx-"] != 1 {
		t.Errorf("pods found: %v", seen)
	}
}

// checkWebhookRefusal: a pod pinned to 2019 nodes with a 2022 image is
// refused with the rule's message instead of failing its pull.
func checkWebhookRefusal(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "iis-2022-on-2019"},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{corev1.LabelWindowsBuild: "10.0.17763"},
			Containers:   []corev1.Container{{Name: "iis", Image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"}},
		},
	}
	_, err := cs.CoreV1().Pods("default").Create(context.Background(), pod, metav1.CreateOptions{})
	// rule: IMG-2
	if err == nil || !strings.Contains(err.Error(), "IMG-2") || !strings.Contains(err.Error(), "10.0.20348") {
		t.Errorf("contradicting pod: err = %v, want a refusal naming IMG-2 and the image's build", err)
	}
}

// checkWebhookCommands uses the cluster as a foreign one: `webhook install
// --url` registers a second webhook, the printed `webhook serve` command
// runs it, and `webhook uninstall` removes it without touching up's own.
func checkWebhookCommands(t *testing.T, cs kubernetes.Interface, dir string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	install := exec.Command(winkube, "webhook", "install", "--data-dir", dir, "--url", "https://"+addr,
		"--windows-taint", "team=win:NoSchedule", "--resolve-images", "catalog")
	msg, err := install.CombinedOutput()
	if err != nil {
		t.Fatalf("webhook install: %v\n%s", err, msg)
	}
	var serveArgs []string
	for _, line := range strings.Split(string(msg), "\n") {
		if f := strings.Fields(line); len(f) > 3 && f[0] == "winkube" && f[1] == "webhook" && f[2] == "serve" {
			serveArgs = f[1:]
		}
	}
	if serveArgs == nil || !strings.Contains(string(msg), filepath.Join(dir, "webhook-install")) {
		t.Fatalf("webhook install printed no serve command:\n%s", msg)
	}
	serve := exec.Command(winkube, serveArgs...)
	serveOut := &syncbuf.Buffer{}
	serve.Stdout, serve.Stderr = serveOut, serveOut
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer serve.Process.Kill()

	// rule: SCH-3 — the second webhook adds the toleration of its own --windows-taint
	ctx := context.Background()
	probe := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "probe-"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "mcr.microsoft.com/windows/servercore:ltsc2022"}}},
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods("default").Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return false, nil
		}
		for _, tol := range p.Spec.Tolerations {
			if tol.Key == "team" && tol.Value == "win" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Errorf("the served webhook never placed a pod: %v\n%s", err, serveOut.String())
	}

	msg, err = exec.Command(winkube, "webhook", "uninstall", "--data-dir", dir).CombinedOutput()
	if err != nil || !strings.Contains(string(msg), "deleted MutatingWebhookConfiguration winkube-webhook") {
		t.Errorf("webhook uninstall: %v\n%s", err, msg)
	}
	if _, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, "winkube-up", metav1.GetOptions{}); err != nil {
		t.Errorf("uninstall removed up's own webhook: %v", err)
	}
	_ = serve.Process.Signal(syscall.SIGTERM)
	if err := serve.Wait(); err != nil {
		t.Errorf("webhook serve after SIGTERM: %v\n%s", err, serveOut.String())
	}
}
