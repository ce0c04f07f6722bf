package volume

import (
	"context"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
)

// The kubelet's volume manager timing (v1.36).
const (
	// A failed mount is retried after 500 ms, doubling up to 2m2s
	// (nestedpendingoperations' exponential back-off).
	mountRetryInitial = 500 * time.Millisecond
	mountRetryMax     = 2*time.Minute + 2*time.Second
	// A pod whose volumes cannot be processed is synced again after the
	// pod worker's back-off (workerBackOffPeriod).
	volumeSyncRetry = 10 * time.Second
	// A mount under way is looked at again after the pod worker's poll
	// of its volumes (podAttachAndMountRetryInterval).
	mountPoll = 300 * time.Millisecond
)

// Wait is the emulated volume manager's state for one pod: the kubelet
// starts a pod's sandbox only once every volume its containers use is
// mounted (SyncPod's WaitForAttachAndMount).
type Wait struct {
	// Recorder records the mount failures' events; Issues checks every
	// volume the pod's containers use on the node, starting a new mount
	// attempt of a volume only when due says its back-off has passed.
	Recorder record.EventRecorder
	Issues   func(ctx context.Context, pod *corev1.Pod, due func(volume string) bool) []Issue
	// Clock times the retries: the pod worker's, so that a fake clock
	// steps the mount back-off with everything else; nil: the real one.
	Clock clock.PassiveClock

	mounted bool
	// syncAt is the next pod sync, which reports volumes that cannot be
	// processed at all.
	syncAt time.Time
	// retries holds each failing volume's next mount attempt.
	retries map[string]*mountRetry
}

type mountRetry struct {
	at    time.Time
	delay time.Duration
}

// Ready reports whether every volume the pod's containers use is
// mounted, emitting the kubelet's events for those that cannot be (STO-2).
// It does the work only when a retry is due, so the caller may call it at
// every wake-up.
func (v *Wait) Ready(ctx context.Context, pod *corev1.Pod) bool {
	now := v.now()
	if v.mounted || !v.due(now) {
		return v.mounted
	}
	issues := v.Issues(ctx, pod, func(name string) bool {
		r := v.retries[name]
		return r == nil || !now.Before(r.at)
	})
	if len(issues) == 0 {
		v.mounted = true
		return true
	}
	v.reportMountFailures(pod, issues, now)
	if !now.Before(v.syncAt) {
		v.reportUnprocessed(pod, issues)
		v.syncAt = now.Add(volumeSyncRetry)
	}
	return false
}

func (v *Wait) now() time.Time {
	if v.Clock == nil {
		return time.Now()
	}
	return v.Clock.Now()
}

// due reports whether the pod sync or a mount retry is due.
func (v *Wait) due(now time.Time) bool {
	if !now.Before(v.syncAt) {
		return true
	}
	for _, r := range v.retries {
		if !now.Before(r.at) {
			return true
		}
	}
	return false
}

// Wake is when the next retry is due; zero once the volumes are mounted.
func (v *Wait) Wake() time.Time {
	if v.mounted {
		return time.Time{}
	}
	next := v.syncAt
	for _, r := range v.retries {
		if r.at.Before(next) {
			next = r.at
		}
	}
	return next
}

// reportMountFailures emits one event per failing volume whose retry is
// due, and backs its next attempt off; a mount under way is looked at
// again soon, its back-off kept.
func (v *Wait) reportMountFailures(pod *corev1.Pod, issues []Issue, now time.Time) {
	failing := map[string]*mountRetry{}
	for _, is := range issues {
		if is.Message == "" && !is.Pending {
			continue
		}
		r := v.retries[is.Name]
		if r == nil {
			r = &mountRetry{at: now}
		}
		failing[is.Name] = r
		if now.Before(r.at) {
			continue
		}
		if is.Pending {
			r.at = now.Add(mountPoll)
			continue
		}
		v.Recorder.Event(pod, corev1.EventTypeWarning, is.Reason, is.Message)
		r.delay = min(max(2*r.delay, mountRetryInitial), mountRetryMax)
		r.at = now.Add(r.delay)
	}
	v.retries = failing
}

// reportUnprocessed emits the pod sync's event when some volumes could not
// be processed, in the kubelet's words (kubelet.go and volume_manager.go).
// Volumes that only fail to mount make the sync time out instead, and the
// kubelet reports no timeout event.
func (v *Wait) reportUnprocessed(pod *corev1.Pod, issues []Issue) {
	var unmounted, unattached, unprocessed, errs []string
	for _, is := range issues {
		unmounted = append(unmounted, is.Name)
		if is.Attach {
			unattached = append(unattached, is.Name)
		}
		if is.Process != "" {
			unprocessed = append(unprocessed, is.Name)
			errs = append(errs, is.Process)
		}
	}
	if len(errs) == 0 {
		return
	}
	for _, list := range [][]string{unmounted, unattached, unprocessed, errs} {
		slices.Sort(list)
	}
	v.Recorder.Eventf(pod, corev1.EventTypeWarning, ReasonFailedMount,
		"Unable to attach or mount volumes: unmounted volumes=%v, unattached volumes=%v, failed to process volumes=%v: %s",
		unmounted, unattached, unprocessed, strings.Join(slices.Compact(errs), "; "))
}
