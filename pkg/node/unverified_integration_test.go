package node

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/node/internal/images"
)

// unknownImage is not in the catalog, and no registry is asked.
const unknownImage = "ghcr.io/example/windows-agent:0.3"

// An image nobody can answer for is not guessed to be Linux: on a Windows
// node it is pulled unverified, runs (here with a stand-in, since winkube
// does not know its command either) and a Warning event says so once.
// rule: IMG-3
func TestUnknownImagePulledUnverified(t *testing.T) {
	needCluster(t)
	ns := newNamespace(t)
	pod := simplePod("agent", "win2019-1", unknownImage)
	createPod(t, ns, pod)
	waitPod(t, ns, "agent", 60*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	ev := waitEvent(t, ns, "agent", images.ReasonImageUnverified, "winkube cannot tell which platforms image", 10*time.Second)
	if ev.Type != corev1.EventTypeWarning || !strings.Contains(ev.Message, "catalog does not know it and no registry was asked") ||
		!strings.Contains(ev.Message, "runs on this windows/amd64") {
		t.Errorf("event: %s %q", ev.Type, ev.Message)
	}
}

// With --image-resolution=strict the same pull fails as a pull from a
// registry that cannot be reached fails on a real node.
// rule: IMG-3
func TestUnknownImageStrictFailsPull(t *testing.T) {
	needCluster(t)
	pool := v1alpha1.NodePool{Name: "strict2022", OS: v1alpha1.OSWindows, Release: "2022", Count: ptr.To(1), Taints: []corev1.Taint{}}
	a := startPoolWith(t, pool, "10.127.132.0/24", Options{UnknownImages: UnknownImagesStrict})
	defer a.Close()
	ns := newNamespace(t)
	createPod(t, ns, simplePod("agent", "strict2022-1", unknownImage))
	p := waitPod(t, ns, "agent", 30*time.Second, "ErrImagePull", func(p *corev1.Pod) bool {
		r := waitingReason(p, "main")
		return r == "ErrImagePull" || r == "ImagePullBackOff"
	})
	msg := p.Status.ContainerStatuses[0].State.Waiting.Message
	if !strings.Contains(msg, `failed to resolve reference "`+unknownImage+`"`) {
		t.Errorf("strict pull: %q", msg)
	}
	if _, err := Start(context.Background(), Options{Config: restConfig, Cluster: cluster, UnknownImages: "lenient"}); err == nil || !strings.Contains(err.Error(), `--image-resolution "lenient"`) {
		t.Errorf("bad mode: %v", err)
	}
	_ = client.CoreV1().Nodes().Delete(context.Background(), "strict2022-1", metav1.DeleteOptions{})
}
