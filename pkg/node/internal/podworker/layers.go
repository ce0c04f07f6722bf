package podworker

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/node/internal/podfs"
	"github.com/winkube/winkube/pkg/windows"
)

// SaveLayers keeps the writable layer of every running container that
// wrote to its filesystem, by container ID, for the agent that adopts it
// after a stop (podfs.Pod.LazyFS). It runs once, when the agent stops, so writes
// cost nothing more while containers run. A container that wrote and
// whose layer cannot be kept gets a Warning event saying so.
func (w *Worker) SaveLayers() {
	pod := w.latest()
	// A HostProcess container's root is the node's disk, not a layer
	// of its own.
	if windows.IsHostProcessPod(&pod.Spec) {
		return
	}
	for _, c := range w.containers() {
		live := c.live.Load()
		if live == nil || live.Sys == nil {
			continue
		}
		lf, ok := live.Sys.FS.(*vfs.Lazy)
		if !ok || !lf.Written() {
			continue
		}
		f, ok := lf.Current().(*vfs.FS)
		if !ok {
			continue // kept in a file of the layer dir already, not loaded
		}
		if err := podfs.SaveLayer(w.node.LayerDir, f, podfs.LayerID(live.ID)); err != nil {
			w.node.Recorder.Eventf(containerRef(pod, c), corev1.EventTypeWarning, podfs.ReasonLayerNotKept,
				"winkube cannot keep the files container %s wrote for its next start: %v", c.spec.Name, err)
		}
	}
}

// LiveIDs are the IDs of the worker's running containers, as layer files
// name them.
func (w *Worker) LiveIDs() []string {
	var out []string
	for _, c := range w.containers() {
		if live := c.live.Load(); live != nil {
			if id := podfs.LayerID(live.ID); id != "" {
				out = append(out, id)
			}
		}
	}
	return out
}
