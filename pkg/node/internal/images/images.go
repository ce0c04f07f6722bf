// Package images is the emulated kubelet's image manager: the pull step of
// a container start. It applies the pull policy, pulls with the node's
// runtime, records the kubelet's Pulling, Pulled and Failed events, shows
// ErrImagePull, ErrImageNeverPull and ImagePullBackOff, and keeps what the
// node's runtime holds (node.status.images). What an image offers is
// pkg/imageinfo's; which registry answer a pull gets, read with the pod's
// pull secrets, is Source's. A Manager is given a small Config, never the
// pod worker or the node; the worker calls Ensure and pauses its pod while
// the pull lasts (Wait).
package images

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/node/internal/backoff"
	"github.com/winkube/winkube/pkg/node/internal/cri"
)

// ReasonImageUnverified is the event of a pull whose image's platforms
// nobody could tell (Manager.pull).
const ReasonImageUnverified = "ImageUnverified"

// Config is what the image manager of one node uses.
type Config struct {
	// Recorder records the pulls' events on the containers; Clock times
	// the back-off (the pod workers' clock).
	Recorder record.EventRecorder
	Clock    clock.PassiveClock
	// Runtime is the node's container runtime, which pulls.
	Runtime cri.Runtime
	// Resolve is what the runtime would find for ref (Source.Resolve).
	Resolve func(ctx context.Context, pod *corev1.Pod, ref string) imageinfo.Answer
	// Strict fails the pull of an image nobody can answer for
	// (pkg/node's Options.UnknownImages strict).
	Strict bool
	// Store is what the node's runtime holds; nil: a new one.
	Store *Store
}

// Manager is the image manager of one node, shared by its pod workers.
type Manager struct {
	cfg Config
}

// New makes the image manager of a node.
func New(cfg Config) *Manager {
	if cfg.Store == nil {
		cfg.Store = NewStore()
	}
	return &Manager{cfg: cfg}
}

// Store is what the node's runtime holds.
func (m *Manager) Store() *Store { return m.cfg.Store }

// State is one container's pull history: the last failed pull's error and
// the back-off it opened. The pod worker keeps one per container.
type State struct {
	err string
	bo  backoff.Backoff
}

// Wait is the pod worker's pause for a pull, in place of a blocking sleep:
// the step that starts the pull ends there, and the step at its end comes
// back to Ensure.
type Wait interface {
	// Pulling reports whether the pull began at an earlier step.
	Pulling() bool
	// Pause reports whether d has passed since the pull began; false
	// ends the step.
	Pause(d time.Duration) bool
}

// Pull is one container's image step.
type Pull struct {
	Pod       *corev1.Pod
	Container *corev1.Container
	// Ref is the container as its events name it.
	Ref   *corev1.ObjectReference
	State *State
	Wait  Wait
}

// Result is the outcome of Ensure. OK: the image is there. Otherwise
// Waiting, when set, is the container's state until RetryAt, the next
// sync; nil Waiting means the pod pauses for the pull.
type Result struct {
	Image   cri.Pulled
	OK      bool
	Waiting *corev1.ContainerStateWaiting
	RetryAt time.Time
}

// Ensure applies the pull policy and pulls with the kubelet's events,
// errors and back-off (IMG-4; k8s.io/kubernetes pkg/kubelet/images/
// image_manager.go). A failed pull shows ErrImagePull until the next sync,
// which finds the image in back-off and shows ImagePullBackOff; the first
// sync after the sandbox appears comes at the PLEG's relist, later ones
// after a failed sync's 10–15 s.
func (m *Manager) Ensure(ctx context.Context, p Pull) Result {
	image, policy := p.Container.Image, p.Container.ImagePullPolicy
	pulled, unverified, err := m.pull(ctx, p.Pod, image)
	present := err == nil && m.cfg.Store.Has(pulled.Ref)
	rec := m.cfg.Recorder
	now := m.cfg.Clock.Now()
	switch {
	case present && policy != corev1.PullAlways:
		// KubeletEnsureSecretPulledImages (beta, on in 1.36) words it so.
		rec.Eventf(p.Ref, corev1.EventTypeNormal, "Pulled", "Container image %q already present on machine and can be accessed by the pod", image)
		return Result{Image: pulled, OK: true}
	case policy == corev1.PullNever:
		msg := fmt.Sprintf("Container image %q is not present with pull policy of Never", image)
		rec.Event(p.Ref, corev1.EventTypeWarning, "ErrImageNeverPull", msg)
		rec.Event(p.Ref, corev1.EventTypeWarning, "Failed", "Error: ErrImageNeverPull")
		return waiting("ErrImageNeverPull", msg, now)
	case p.State.err != "" && p.State.bo.InBackOffSinceUpdate(now):
		rec.Eventf(p.Ref, corev1.EventTypeNormal, "BackOff", "Back-off pulling image %q", image)
		rec.Event(p.Ref, corev1.EventTypeWarning, "Failed", "Error: ImagePullBackOff")
		return waiting("ImagePullBackOff", fmt.Sprintf("Back-off pulling image %q: ErrImagePull: %s", image, p.State.err), now)
	}
	if !p.Wait.Pulling() { // the step that ends the pull comes back here
		rec.Eventf(p.Ref, corev1.EventTypeNormal, "Pulling", "Pulling image %q", image)
	}
	if !p.Wait.Pause(pullTime(pulled)) {
		return Result{}
	}
	if err != nil {
		return m.failed(p, err)
	}
	rec.Eventf(p.Ref, corev1.EventTypeNormal, "Pulled", "Successfully pulled image %q in %v (%v including waiting). Image size: %d bytes.",
		image, pulled.Duration, pulled.Duration, pulled.Size)
	if unverified != "" {
		rec.Eventf(p.Ref, corev1.EventTypeWarning, ReasonImageUnverified,
			"winkube cannot tell which platforms image %q offers: %s. It runs on this %s node unverified (IMG-3); winkube up and nodes fail such pulls with --image-resolution=strict",
			image, unverified, pulled.Platform)
	}
	m.cfg.Store.Add(pulled.Ref)
	p.State.err = ""
	return Result{Image: pulled, OK: true}
}

// failed records ErrImagePull and opens the image back-off.
func (m *Manager) failed(p Pull, err error) Result {
	m.cfg.Recorder.Eventf(p.Ref, corev1.EventTypeWarning, "Failed", "Failed to pull image %q: %v", p.Container.Image, err)
	m.cfg.Recorder.Event(p.Ref, corev1.EventTypeWarning, "Failed", "Error: ErrImagePull")
	p.State.err = err.Error()
	now := m.cfg.Clock.Now()
	p.State.bo.Next(now, now)
	return waiting("ErrImagePull", err.Error(), now)
}

// waiting is a container left waiting until the next sync.
func waiting(reason, message string, now time.Time) Result {
	return Result{
		Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message},
		RetryAt: backoff.SyncRetryAt(now),
	}
}

// Kept is the image of a container that ran before the node agent
// restarted: the runtime kept it, so it is there without a pull or its
// events, and the node lists it.
func (m *Manager) Kept(ctx context.Context, pod *corev1.Pod, ref string) (cri.Pulled, error) {
	pulled, _, err := m.pull(ctx, pod, ref)
	if err != nil {
		return cri.Pulled{}, err
	}
	m.cfg.Store.Add(pulled.Ref)
	return pulled, nil
}

// pull pulls ref with the node's runtime. An image that neither the
// catalog nor a registry can answer for has unknown platforms; winkube
// does not guess them: by default the pull goes through "unverified" and
// unverified says why, for the Warning event; with Config.Strict it fails
// as a pull from a registry that cannot be reached.
func (m *Manager) pull(ctx context.Context, pod *corev1.Pod, ref string) (pulled cri.Pulled, unverified string, err error) {
	rt := m.cfg.Runtime
	ans := m.cfg.Resolve(ctx, pod, ref)
	if ans.Source != imageinfo.SourceUnknown || ans.Image.Missing != nil {
		pulled, err = rt.PullImage(ans.Image)
		return pulled, "", err
	}
	why := "winkube's catalog does not know it and no registry was asked (--resolve-images registry)"
	if ans.Err != nil {
		why = "its registry did not answer: " + ans.Err.Error()
	}
	if m.cfg.Strict {
		return cri.Pulled{}, "", &cri.PullError{Message: cri.UnresolvedMessage(ans.Image, why)}
	}
	return rt.PullUnverified(ans.Image), why, nil
}

// pullTime is how long the emulated pull takes; failures fail fast.
func pullTime(p cri.Pulled) time.Duration {
	if p.Duration == 0 {
		return 150 * time.Millisecond
	}
	return p.Duration
}
