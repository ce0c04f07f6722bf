package podworker

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/node/internal/cri"
	"github.com/winkube/winkube/pkg/node/internal/podworker/backoff"
)

// ensureImage applies the pull policy and pulls with the kubelet's events,
// errors and back-off (IMG-4; k8s.io/kubernetes pkg/kubelet/images/
// image_manager.go). A failed pull shows ErrImagePull until the next sync,
// which finds the image in back-off and shows ImagePullBackOff; the first
// sync after the sandbox appears comes at the PLEG's relist, later ones
// after a failed sync's 10–15 s.
func (w *Worker) ensureImage(ctx context.Context, pod *corev1.Pod, c *ctr) (cri.Pulled, bool) {
	ref := containerRef(pod, c)
	image := c.spec.Image
	pulled, unverified, err := w.pullImage(ctx, pod, image)
	present := err == nil && w.node.HasImage(pulled.Ref)
	rec := w.node.Recorder
	now := w.clock.Now()
	switch {
	case present && c.spec.ImagePullPolicy != corev1.PullAlways:
		// KubeletEnsureSecretPulledImages (beta, on in 1.36) words it so.
		rec.Eventf(ref, corev1.EventTypeNormal, "Pulled", "Container image %q already present on machine and can be accessed by the pod", image)
		return pulled, true
	case c.spec.ImagePullPolicy == corev1.PullNever:
		msg := fmt.Sprintf("Container image %q is not present with pull policy of Never", image)
		rec.Event(ref, corev1.EventTypeWarning, "ErrImageNeverPull", msg)
		rec.Event(ref, corev1.EventTypeWarning, "Failed", "Error: ErrImageNeverPull")
		c.status.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImageNeverPull", Message: msg}}
		c.retryAt = backoff.SyncRetryAt(now)
		return cri.Pulled{}, false
	case c.pullErr != "" && c.pullBO.InBackOffSinceUpdate(now):
		rec.Eventf(ref, corev1.EventTypeNormal, "BackOff", "Back-off pulling image %q", image)
		rec.Event(ref, corev1.EventTypeWarning, "Failed", "Error: ImagePullBackOff")
		c.status.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
			Reason: "ImagePullBackOff", Message: fmt.Sprintf("Back-off pulling image %q: ErrImagePull: %s", image, c.pullErr),
		}}
		c.retryAt = backoff.SyncRetryAt(now)
		return cri.Pulled{}, false
	}
	if !w.pulling() { // the step that ends the pull comes back here
		rec.Eventf(ref, corev1.EventTypeNormal, "Pulling", "Pulling image %q", image)
	}
	if !w.pause(ctx, pullTime(pulled)) {
		return cri.Pulled{}, false
	}
	if err != nil {
		w.pullFailed(pod, c, err)
		return cri.Pulled{}, false
	}
	rec.Eventf(ref, corev1.EventTypeNormal, "Pulled", "Successfully pulled image %q in %v (%v including waiting). Image size: %d bytes.",
		image, pulled.Duration, pulled.Duration, pulled.Size)
	if unverified != "" {
		rec.Eventf(ref, corev1.EventTypeWarning, ReasonImageUnverified,
			"winkube cannot tell which platforms image %q offers: %s. It runs on this %s node unverified (IMG-3); winkube up and nodes fail such pulls with --image-resolution=strict",
			image, unverified, pulled.Platform)
	}
	w.node.AddImage(pulled.Ref)
	c.pullErr = ""
	return pulled, true
}

// ReasonImageUnverified is the event of a pull whose image's platforms
// nobody could tell (images.go).
const ReasonImageUnverified = "ImageUnverified"

// pullFailed records ErrImagePull and opens the image back-off.
func (w *Worker) pullFailed(pod *corev1.Pod, c *ctr, err error) {
	ref := containerRef(pod, c)
	w.node.Recorder.Eventf(ref, corev1.EventTypeWarning, "Failed", "Failed to pull image %q: %v", c.spec.Image, err)
	w.node.Recorder.Event(ref, corev1.EventTypeWarning, "Failed", "Error: ErrImagePull")
	c.pullErr = err.Error()
	c.status.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImagePull", Message: err.Error()}}
	now := w.clock.Now()
	c.pullBO.Next(now, now)
	c.retryAt = backoff.SyncRetryAt(now)
}

// pullTime is how long the emulated pull takes; failures fail fast.
func pullTime(p cri.Pulled) time.Duration {
	if p.Duration == 0 {
		return 150 * time.Millisecond
	}
	return p.Duration
}
