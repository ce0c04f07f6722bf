package controlplane

import (
	"fmt"
	"syscall"
	"time"
)

// diskPolicy is how much free space the data dir's file system must keep
// and how often the running control plane looks.
//
// minFree: etcd preallocates each next 64 MB write-ahead-log segment
// ahead of need and exits at once (it cannot be stopped from inside this
// process) when that allocation or a database write fails with ENOSPC;
// stopping the cluster while a segment and some room for the database and
// the logs remain keeps etcd's files whole, so the next `up` resumes the
// cluster.
//
// every: statfs is a cheap system call; a disk that fills faster than
// minFree per interval outruns any poll.
type diskPolicy struct {
	minFree uint64
	every   time.Duration
}

// disk is the policy Start gives each control plane; a variable only so
// that the package's tests can change it.
var disk = diskPolicy{minFree: 96 << 20, every: 500 * time.Millisecond}

// DiskFullError says the data dir's file system is (nearly) full.
type DiskFullError struct {
	DataDir string
	Free    uint64 // bytes available to this user
	Need    uint64 // the least winkube runs with
	Running bool   // found while the cluster ran (it was stopped), not at start
}

func (e *DiskFullError) Error() string {
	msg := fmt.Sprintf("no space left on device: the data dir %s has %s free, less than the %s winkube keeps free so that etcd's files are never damaged",
		e.DataDir, mib(e.Free), mib(e.Need))
	if e.Running {
		return msg + "; the cluster was stopped with its state kept. Free space on that file system and run winkube up again"
	}
	return msg + "; free space on that file system or choose another --data-dir"
}

func mib(n uint64) string { return fmt.Sprintf("%d MiB", n>>20) }

// checkDiskSpace returns a *DiskFullError when dir's file system has less
// than need bytes available. An unreadable file system is not a reason
// to stop: the writes themselves will say what is wrong.
func checkDiskSpace(dir string, need uint64, running bool) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return nil
	}
	free := st.Bavail * uint64(st.Bsize)
	if free >= need {
		return nil
	}
	return &DiskFullError{DataDir: dir, Free: free, Need: need, Running: running}
}

// watchDiskSpace fails the control plane once the data dir's file system
// runs low; the caller (Wait in pkg/cluster, say) then stops everything
// cleanly, etcd included.
func (c *ControlPlane) watchDiskSpace() {
	defer c.wg.Done()
	tick := time.NewTicker(c.disk.every)
	defer tick.Stop()
	for {
		select {
		case <-c.closing:
			return
		case <-tick.C:
		}
		if err := checkDiskSpace(c.l.opts.DataDir, c.disk.minFree, true); err != nil {
			c.failUnlessClosing(err)
			return
		}
	}
}
