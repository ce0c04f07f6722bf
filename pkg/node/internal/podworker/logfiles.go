package podworker

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/node/internal/ctrlog"
	"github.com/winkube/winkube/pkg/node/internal/podlogs"
)

// logFile is the log file the runtime writes for a container run on the
// node's disk (podlogs), nil for a node without one.
func (w *Worker) logFile(pod *corev1.Pod, c *ctr, id string) ctrlog.Sink {
	if w.node.Disk == nil {
		return nil
	}
	return podlogs.Open(w.node.Disk(), pod, c.spec.Name, c.status.RestartCount, w.node.Host.Runtime().IDPrefix()+id)
}
