package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	k8sscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/transport/spdy"
)

const webPage = "<H1>Windows Container Web Server</H1>"

// checkTraffic: the flagship web server answers through the apiserver's
// service proxy (kube-apiserver's egress goes into the emulated pod
// network, never the host's), through kubectl port-forward's protocol, and
// from pods by the names `net check` says resolve.
func checkTraffic(t *testing.T, cs kubernetes.Interface, dir string) {
	t.Helper()
	ctx := context.Background()
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	var body []byte
	deadline := time.Now().Add(60 * time.Second)
	for {
		body, err = cs.CoreV1().Services("default").ProxyGet("http", "win-webserver", "80", "/", nil).DoRaw(ctx)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	if err != nil || !strings.Contains(string(body), webPage) {
		t.Errorf("service proxy to win-webserver: %v %q", err, body)
	}
	pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=win-webserver"})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("web server pods: %v", err)
	}
	win := pods.Items[0].Name
	if got := portForwardGet(t, cfg, win, 80); !strings.Contains(got, webPage) {
		t.Errorf("port-forward to %s:80: %q", win, got)
	}
	// rule: DNS-1 — as `net check` said in checkNet.
	for _, tc := range []struct {
		url  string
		want string
	}{
		{"http://win-webserver/", webPage},
		{"http://win-webserver.default/", "Could not resolve host: win-webserver.default"},
		{"http://win-webserver.default.svc.cluster.local/", webPage},
	} {
		out, err := execIn(cfg, win, "windowswebserver", "curl.exe", "-sS", tc.url)
		if !strings.Contains(out, tc.want) {
			t.Errorf("curl.exe %s in %s: %q (%v), want %q", tc.url, win, out, err, tc.want)
		}
	}
	checkMatrixRuns(t, cfg, dir)
}

// execIn runs cmd in a pod's container through the apiserver, as
// kubectl exec does.
func execIn(cfg *rest.Config, pod, container string, cmd ...string) (string, error) {
	cs := kubernetes.NewForConfigOrDie(cfg)
	req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace("default").Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: container, Command: cmd, Stdout: true, Stderr: true}, k8sscheme.ParameterCodec)
	ex, err := remotecommand.NewSPDYExecutor(cfg, http.MethodPost, req.URL())
	if err != nil {
		return "", err
	}
	// Two buffers: the streams are copied concurrently (into one
	// bytes.Buffer, ReadFrom calls race and lose output).
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &out, Stderr: &errOut})
	return out.String() + errOut.String(), err
}

// portForwardGet forwards a random local port to the pod's port, as
// `kubectl port-forward pod/NAME :PORT` does, and GETs / through it.
func portForwardGet(t *testing.T, cfg *rest.Config, pod string, port int) string {
	t.Helper()
	cs := kubernetes.NewForConfigOrDie(cfg)
	u := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace("default").Name(pod).SubResource("portforward").URL()
	rt, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: rt}, http.MethodPost, u)
	stop, ready := make(chan struct{}), make(chan struct{})
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{fmt.Sprintf("0:%d", port)}, stop, ready, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- fw.ForwardPorts() }()
	defer func() { close(stop); <-done }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("port-forward: %v", err)
	}
	ports, err := fw.GetPorts()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", ports[0].Local))
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// checkMatrixRuns: every flow `net matrix` decides from a pod inside the
// cluster is tried for real in that pod (ping for "any port", a TCP
// connect otherwise), and the pod's answer agrees with the model's.
// Flows from nodes have no shell to run in; flows to the internet leave
// the emulated cluster, which has no way out of the machine.
func checkMatrixRuns(t *testing.T, cfg *rest.Config, dir string) {
	t.Helper()
	out, err := exec.Command(winkube, "net", "matrix", "-o", "json", "--kubeconfig", filepath.Join(dir, "kubeconfig")).Output()
	if err != nil {
		t.Fatalf("net matrix: %v\n%s", err, out)
	}
	var m struct {
		WindowsPod, LinuxPod string
		Flows                []struct {
			Flow           string
			Windows, Linux *netResult
		}
	}
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, f := range m.Flows {
		for _, side := range []struct {
			pod string
			res *netResult
			win bool
		}{{m.WindowsPod, f.Windows, true}, {m.LinuxPod, f.Linux, false}} {
			if side.res == nil || side.pod == "" || !strings.HasPrefix(f.Flow, "pod →") || strings.Contains(f.Flow, "external") && side.res.Reachable {
				continue
			}
			target := side.res.Target
			if strings.HasPrefix(target, "svc/") || strings.HasPrefix(target, "node/") {
				target = side.res.ResolvedIP
			}
			got := tryFlow(cfg, strings.TrimPrefix(side.pod, "pod/default/"), target, side.res.Port, side.res.Protocol, side.win)
			tried++
			if got != side.res.Reachable {
				t.Errorf("%s from %s: the pod says reachable=%t, net check says %t (%s)", f.Flow, side.pod, got, side.res.Reachable, side.res.Reason)
			}
		}
	}
	if tried < 5 {
		t.Errorf("only %d flows tried", tried)
	}
}

// tryFlow runs the flow in the pod: Test-NetConnection or ping on Windows,
// nc or ping on Linux.
func tryFlow(cfg *rest.Config, pod, target string, port int, proto string, win bool) bool {
	cs := kubernetes.NewForConfigOrDie(cfg)
	p, err := cs.CoreV1().Pods("default").Get(context.Background(), pod, metav1.GetOptions{})
	if err != nil {
		return false
	}
	container := p.Spec.Containers[0].Name
	var cmd []string
	switch {
	case win && (port == 0 || proto == "icmp"):
		cmd = []string{"ping", "-n", "1", "-w", "1000", target}
	case win:
		cmd = []string{"powershell", "-Command", fmt.Sprintf("if ((Test-NetConnection %s -Port %d).TcpTestSucceeded) { exit 0 } else { exit 1 }", target, port)}
	case port == 0 || proto == "icmp":
		cmd = []string{"ping", "-c", "1", "-W", "1", target}
	default:
		cmd = []string{"nc", "-z", "-w", "2", target, fmt.Sprint(port)}
	}
	_, err = execIn(cfg, pod, container, cmd...)
	return err == nil
}
