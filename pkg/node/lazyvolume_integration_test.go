package node

import (
	"bufio"
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// A container asks for its service account token only when it first
// looks under the mount: nginx's entrypoint reads its own files at start,
// which makes the container's filesystem but not the projected volume
// (a TokenRequest each); an exec that reads the namespace file makes it.
// The API server's request counter tells (pkg/node's tests run one at a
// time).
func TestTokenRequestedAtFirstLook(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	before := tokenRequests(t)
	createPod(t, ns, simplePod("web", "linux-1", "nginx"))
	waitPod(t, ns, "web", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	time.Sleep(300 * time.Millisecond) // past the start's settle
	if n := tokenRequests(t) - before; n != 0 {
		t.Errorf("%d TokenRequests before anything looked under the mount", n)
	}
	out, err := execIn(t, ns, "web", "linux-1", []string{"cat", "/var/run/secrets/kubernetes.io/serviceaccount/namespace"}, "")
	if err != nil || out != ns {
		t.Errorf("cat namespace = %q, %v; want %q", out, err, ns)
	}
	if n := tokenRequests(t) - before; n != 1 {
		t.Errorf("%d TokenRequests after reading under the mount, want 1", n)
	}
}

// tokenRequests is how many TokenRequests the API server has served.
func tokenRequests(t *testing.T) int {
	t.Helper()
	data, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatalf("API server metrics: %v", err)
	}
	total := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `subresource="token"`) ||
			!strings.Contains(line, `verb="POST"`) {
			continue
		}
		n, _ := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		total += int(n)
	}
	return total
}
