package node

import (
	"io"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The log is streamed as the kubelet streams it: chunked, not with a
// length, so that the last bytes do not arrive together with EOF, which
// kube-apiserver's WebSocket log stream (wsstream's message copy) drops.
func TestLogIsStreamed(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := simplePod("alive", "linux-1", busybox)
	pod.Spec.Containers[0].Command = []string{"/bin/sh", "-c", "echo container is alive; sleep 10000"}
	createPod(t, ns, pod)
	waitPod(t, ns, "alive", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	resp, err := kubeletClient(t).Get("https://linux-1:10250/containerLogs/" + ns + "/alive/main")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "container is alive\n" || resp.ContentLength != -1 || len(resp.TransferEncoding) == 0 {
		t.Errorf("log %q, length %d, transfer encoding %v; want the line, chunked", body, resp.ContentLength, resp.TransferEncoding)
	}
}
