// Package backoff is the kubelet's timings that the pod worker and the
// image manager follow: the image pull and crash loop back-off, the retry
// after a failed sync and the PLEG's relist period.
package backoff

import (
	"math/rand/v2"
	"time"
)

// The kubelet's timings (k8s.io/kubernetes v1.36, pkg/kubelet).
const (
	// backoffInitial and backoffMax bound the image pull back-off
	// (kubelet.go imageBackOffPeriod, MaxImageBackOff) and the crash loop
	// back-off (initialCrashLoopBackOff, MaxContainerBackOff; the
	// ReduceDefaultCrashLoopBackOffDecay gate is off by default).
	backoffInitial = 10 * time.Second
	backoffMax     = 300 * time.Second
	// backoffReset forgets a back-off whose last step is older: the
	// crash loop back-off's HasExpiredFunc, and flowcontrol's default of
	// twice the maximum for images.
	backoffReset = 600 * time.Second
	// syncRetry is how long the pod worker waits after a failed sync
	// (kubelet.go backOffPeriod), jittered by half (pod_workers.go
	// workerBackOffPeriodJitterFactor): the next sync comes 10–15 s later.
	syncRetry = 10 * time.Second
	// PLEGRelist is the generic PLEG's relist period: a new sandbox or an
	// exited container triggers a sync at most this long after it happens.
	PLEGRelist = time.Second
)

// Backoff is one entry of the kubelet's flowcontrol.Backoff: a window that
// starts at 10 s, doubles to 5 min and starts again after 10 quiet minutes.
type Backoff struct {
	Window     time.Duration
	lastUpdate time.Time
}

// Next opens or doubles the window. event is when the failure happened
// (a container's finish time) and decides whether the entry is stale.
func (b *Backoff) Next(event, now time.Time) time.Duration {
	if b.stale(event) {
		b.Window = backoffInitial
	} else {
		b.Window = min(2*b.Window, backoffMax)
	}
	b.lastUpdate = now
	return b.Window
}

func (b *Backoff) stale(event time.Time) bool {
	return b.Window == 0 || event.Sub(b.lastUpdate) > backoffReset
}

// InBackOffSince reports whether less than the window has passed since
// event (flowcontrol IsInBackOffSince, used for crash loops).
func (b *Backoff) InBackOffSince(event, now time.Time) bool {
	return !b.stale(event) && now.Sub(event) < b.Window
}

// InBackOffSinceUpdate reports whether less than the window has passed
// since the last failure (flowcontrol IsInBackOffSinceUpdate, used for
// image pulls).
func (b *Backoff) InBackOffSinceUpdate(now time.Time) bool {
	return !b.stale(now) && now.Sub(b.lastUpdate) < b.Window
}

// SyncRetryAt is when the pod worker syncs again after a failed sync.
func SyncRetryAt(now time.Time) time.Time {
	return now.Add(syncRetry + rand.N(syncRetry/2))
}
