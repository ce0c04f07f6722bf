// The pod sandbox: the pause container and the pod's network address.

package podworker

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/winkube/winkube/pkg/apis/annotations"
	"github.com/winkube/winkube/pkg/node/internal/backoff"
	"github.com/winkube/winkube/pkg/node/internal/cri"
	"github.com/winkube/winkube/pkg/node/internal/podnet"
)

// createSandbox starts the pod sandbox: the pause image must run on the
// host (IMG-5) and a pod-network pod needs an address from the node's CIDR.
// A failure has no back-off of its own: the failed sync is retried after
// the pod worker's 10–15 s (pod_workers.go completeWork).
func (w *Worker) createSandbox(ctx context.Context, pod *corev1.Pod) bool {
	now := w.clock.Now()
	if now.Before(w.sandboxRetryAt) {
		return false
	}
	var m *podnet.IPAM
	if w.node.Host.UsesPodNetwork(pod) {
		if m = w.node.Network(); m == nil {
			return false // no pod CIDR yet: the CNI cannot set up the network
		}
	}
	sandboxID := cri.NewID(string(pod.UID) + "/sandbox")
	handler, err := w.runtimeHandler(ctx, pod)
	if err == nil {
		err = w.node.Host.Runtime().RunSandbox(w.sandboxImage(pod), sandboxID, handler)
	}
	if err != nil {
		w.node.Recorder.Eventf(pod, corev1.EventTypeWarning, "FailedCreatePodSandBox", "Failed to create pod sandbox: %v", err)
		w.sandboxRetryAt = backoff.SyncRetryAt(now)
		return false
	}
	if m != nil {
		ip, err := m.Allocate(string(pod.UID))
		if err != nil {
			msg := fmt.Sprintf("rpc error: code = Unknown desc = failed to setup network for sandbox %q: plugin type=\"host-local\" failed (add): failed to allocate for range 0: %v", sandboxID, err)
			w.node.Recorder.Eventf(pod, corev1.EventTypeWarning, "FailedCreatePodSandBox", "Failed to create pod sandbox: %s", msg)
			w.sandboxRetryAt = backoff.SyncRetryAt(now)
			return false
		}
		w.ip = ip
	}
	w.sandboxReady = true
	// The PLEG sees the new sandbox at its next relist and syncs the pod
	// again, which is when a failed pull first shows ImagePullBackOff.
	w.resyncAt = now.Add(backoff.PLEGRelist)
	w.annotate(pod)
	return true
}

// sandboxImage is the pause image: the kubelet release's default (IMG-5)
// unless the pod overrides it.
func (w *Worker) sandboxImage(pod *corev1.Pod) string {
	if img := pod.Annotations[annotations.SandboxImage]; img != "" {
		return img
	}
	return w.node.PauseImage
}

// runtimeHandler is the handler of the pod's RuntimeClass, looked up as
// the kubelet's runtimeclass manager does when it creates the sandbox
// (KLT-11): a class deleted since the pod was admitted fails the sandbox
// with the lister's NotFound.
func (w *Worker) runtimeHandler(ctx context.Context, pod *corev1.Pod) (string, error) {
	name := ptr.Deref(pod.Spec.RuntimeClassName, "")
	if name == "" {
		return "", nil
	}
	rc, err := w.node.Client.NodeV1().RuntimeClasses().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", apierrors.NewNotFound(nodev1.Resource("runtimeclass"), name)
	}
	if err != nil {
		return "", fmt.Errorf("failed to lookup RuntimeClass %s: %v", name, err)
	}
	return rc.Handler, nil
}
