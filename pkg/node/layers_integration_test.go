package node

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/node/internal/podfs"
)

// noteWriter writes /note on its first run and prints it on a later one.
func noteWriter(name, node string) *corev1.Pod {
	p := simplePod(name, node, busybox)
	p.Spec.Containers[0].Command = []string{"sh", "-c",
		`if [ -f /note ]; then echo "kept: $(cat /note)"; else echo hello > /note; echo wrote; fi; while true; do sleep 1; done`}
	return p
}

// waitLog polls a container's log through the agent's kubelet API until
// it holds want.
func waitLog(t *testing.T, a *Agent, node, ns, pod, want string) {
	t.Helper()
	kubelet := agentKubeletClient(a)
	url := "https://" + node + ":10250/containerLogs/" + ns + "/" + pod + "/main"
	var log string
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, 20*time.Second, true, func(context.Context) (bool, error) {
		_, log = get(t, kubelet, url)
		return strings.Contains(log, want), nil
	})
	if err != nil {
		t.Fatalf("log of %s: %q, want it to contain %q: %v", pod, log, want, err)
	}
}

// An adopted container keeps the files it wrote: the agent that stops
// keeps its writable layer in the layer dir, and the one that adopts it
// runs its program again over those files.
func TestRestartKeepsWrittenFiles(t *testing.T) {
	needCluster(t)
	layers := t.TempDir()
	pool := v1alpha1.NodePool{Name: "layers", OS: v1alpha1.OSLinux, Count: ptr.To(1)}
	first := startPoolWith(t, pool, "10.127.142.0/24", Options{LayerDir: layers})
	ns := newNamespace(t)
	createPod(t, ns, noteWriter("writer", "layers-1"))
	waitPod(t, ns, "writer", 30*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	waitLog(t, first, "layers-1", ns, "writer", "wrote")
	first.Close()
	kept, _ := filepath.Glob(filepath.Join(layers, "*.tar"))
	if len(kept) != 1 {
		t.Fatalf("layer files after the stop: %v, want one", kept)
	}

	second := startPoolWith(t, pool, "10.127.142.0/24", Options{LayerDir: layers})
	waitLog(t, second, "layers-1", ns, "writer", "kept: hello")
	if _, err := os.Stat(kept[0]); !os.IsNotExist(err) {
		t.Errorf("the restored layer file is still there: %v", err)
	}
	// The next stop keeps the restored layer again, and drops a layer
	// whose container is gone.
	stale := filepath.Join(layers, "gone.tar")
	if err := os.WriteFile(stale, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	second.Close()
	if _, err := os.Stat(kept[0]); err != nil {
		t.Errorf("the second stop did not keep the layer again: %v", err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the layer of a container that is gone is still there: %v", err)
	}
	third := startPoolWith(t, pool, "10.127.142.0/24", Options{LayerDir: layers})
	defer third.Close()
	waitLog(t, third, "layers-1", ns, "writer", "kept: hello")
}

// A node agent with no layer dir (winkube nodes) says, for each container
// that wrote files, that they are not kept.
func TestStopWithoutLayerDirSaysSo(t *testing.T) {
	needCluster(t)
	pool := v1alpha1.NodePool{Name: "nolayers", OS: v1alpha1.OSLinux, Count: ptr.To(1)}
	a := startPoolWith(t, pool, "10.127.143.0/24", Options{})
	ns := newNamespace(t)
	createPod(t, ns, noteWriter("writer", "nolayers-1"))
	waitPod(t, ns, "writer", 30*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	waitLog(t, a, "nolayers-1", ns, "writer", "wrote")
	a.Close()
	waitEvent(t, ns, "writer", podfs.ReasonLayerNotKept, "has no data dir", 15*time.Second)
}
