package controlplane

import "time"

// QuickRestarts makes the control planes started until undo restart a dead
// component after backoff, not seconds, so that a test reaches the
// give-up within seconds. Call undo once Start has returned: each control
// plane copies the policy when it starts.
func QuickRestarts(backoff time.Duration) (undo func()) {
	old := restarts
	restarts.backoff, restarts.maxBackoff = backoff, backoff
	return func() { restarts = old }
}

// LowDiskAt makes the control planes started until undo treat less than
// free bytes as a full disk, and look every interval.
func LowDiskAt(free uint64, interval time.Duration) (undo func()) {
	old := disk
	disk = diskPolicy{minFree: free, every: interval}
	return func() { disk = old }
}
