package podworker

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
	"github.com/winkube/winkube/pkg/windows"
)

// Events about writable layers across a stop of the node agent.
const (
	// ReasonLayerNotKept: a container wrote files and they cannot be kept
	// for the next start (no data dir, or it cannot be written).
	ReasonLayerNotKept = "LayerNotKept"
	// ReasonLayerNotRestored: a kept layer cannot be read back.
	ReasonLayerNotRestored = "LayerNotRestored"
)

// SaveLayers keeps the writable layer of every running container that
// wrote to its filesystem, by container ID, for the agent that adopts it
// after a stop (lazyFS). It runs once, when the agent stops, so writes
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
		if live == nil || live.sys == nil {
			continue
		}
		lf, ok := live.sys.FS.(*vfs.Lazy)
		if !ok || !lf.Written() {
			continue
		}
		f, ok := lf.Current().(*vfs.FS)
		if !ok {
			continue // kept in a file of the layer dir already, not loaded
		}
		if err := w.saveLayer(f, LayerID(live.id)); err != nil {
			w.node.Recorder.Eventf(containerRef(pod, c), corev1.EventTypeWarning, ReasonLayerNotKept,
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
			if id := LayerID(live.id); id != "" {
				out = append(out, id)
			}
		}
	}
	return out
}

// PruneLayers removes the kept layers of containers not in live (IDs as
// LayerID gives them): pods deleted, or containers restarted, while the
// agent was stopped.
func PruneLayers(dir string, live map[string]bool) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.tar"))
	for _, f := range files {
		if !live[strings.TrimSuffix(filepath.Base(f), ".tar")] {
			_ = os.Remove(f)
		}
	}
}

func (w *Worker) saveLayer(f *vfs.FS, id string) error {
	dir := w.node.LayerDir
	if dir == "" {
		return errors.New("this node agent has no data dir (winkube nodes)")
	}
	if id == "" {
		return errors.New("the container has no ID")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".layer-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := f.SaveLayer(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, id+".tar"))
}

// savedLayer is the file SaveLayers kept for the container's current ID,
// or "" when there is none.
func (w *Worker) savedLayer(c *ctr) string {
	// Only a container adopted Running has one: a fresh start looks
	// for no file.
	if w.node.LayerDir == "" || c.status.State.Running == nil {
		return ""
	}
	id := LayerID(c.status.ContainerID)
	if id == "" {
		return ""
	}
	path := filepath.Join(w.node.LayerDir, id+".tar")
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
}

// loadLayer puts a kept layer over the container's new filesystem and
// removes the file: the filesystem is kept from now on (Lazy.Keep) and
// saved again at the next stop.
func (w *Worker) loadLayer(f program.FS, c *ctr, path string) {
	err := loadLayerFile(f, path)
	if err == nil {
		_ = os.Remove(path)
		return
	}
	w.node.Recorder.Eventf(containerRef(w.latest(), c), corev1.EventTypeWarning, ReasonLayerNotRestored,
		"winkube cannot restore the files container %s wrote before the node agent stopped: %v", c.spec.Name, err)
}

func loadLayerFile(f program.FS, path string) error {
	vf, ok := f.(*vfs.FS)
	if !ok {
		return fmt.Errorf("the container's filesystem is a %T", f)
	}
	r, err := os.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	return vf.LoadLayer(r)
}

// LayerID is a container ID without the runtime's scheme, safe as a file
// name.
func LayerID(id string) string {
	if i := strings.Index(id, "://"); i >= 0 {
		id = id[i+3:]
	}
	if strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return ""
	}
	return id
}
