package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
)

// Stopping the node agent stops its containers' programs and waits for
// their own clean-up: an etcd container's private data dir is gone once
// Close returns, as a real node's containers leave nothing on the host
// when they stop.
func TestCloseWaitsForPrograms(t *testing.T) {
	needCluster(t)
	pool := v1alpha1.NodePool{Name: "closing", OS: v1alpha1.OSLinux, Count: ptr.To(1)}
	a := startPoolWith(t, pool, "10.127.145.0/24", Options{})
	closed := false
	defer func() {
		if !closed {
			a.Close()
		}
		_ = client.CoreV1().Nodes().Delete(context.Background(), "closing-1", metav1.DeleteOptions{})
	}()
	ns := newNamespace(t)
	pod := simplePod("etcd", "closing-1", "registry.k8s.io/etcd:3.6.5-0")
	pod.Spec.Containers[0].Command = []string{"etcd", "--listen-client-urls=http://0.0.0.0:2379", "--advertise-client-urls=http://127.0.0.1:2379"}
	createPod(t, ns, pod)
	waitPod(t, ns, "etcd", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	dirs := func() []string {
		d, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("winkube-etcd-%d-*", os.Getpid())))
		return d
	}
	// The dir exists once etcd started (its start is not the pod's).
	for deadline := time.Now().Add(30 * time.Second); len(dirs()) == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
	}
	if len(dirs()) == 0 {
		t.Fatal("etcd made no data dir")
	}
	a.Close()
	closed = true
	if left := dirs(); len(left) > 0 {
		t.Errorf("after Close, etcd's data dir is still there: %v", left)
	}
}
