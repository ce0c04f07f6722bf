package podfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
)

// Events about writable layers across a stop of the node agent.
const (
	// ReasonLayerNotKept: a container wrote files and they cannot be kept
	// for the next start (no data dir, or it cannot be written).
	ReasonLayerNotKept = "LayerNotKept"
	// ReasonLayerNotRestored: a kept layer cannot be read back.
	ReasonLayerNotRestored = "LayerNotRestored"
)

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

// SaveLayer keeps f's writable layer in dir, as the file of container
// id (LayerID), for the agent that adopts the container after a stop
// (LazyFS).
func SaveLayer(dir string, f *vfs.FS, id string) error {
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
func (p *Pod) savedLayer(runningID string) string {
	// Only a container adopted Running has one: a fresh start looks
	// for no file.
	if p.cfg.LayerDir == "" || runningID == "" {
		return ""
	}
	id := LayerID(runningID)
	if id == "" {
		return ""
	}
	path := filepath.Join(p.cfg.LayerDir, id+".tar")
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
}

// loadLayer puts a kept layer over the container's new filesystem and
// removes the file: the filesystem is kept from now on (Lazy.Keep) and
// saved again at the next stop.
func (p *Pod) loadLayer(f program.FS, plan Plan, path string) {
	err := loadLayerFile(f, path)
	if err == nil {
		_ = os.Remove(path)
		return
	}
	p.cfg.Recorder.Eventf(plan.Ref(p.cfg.Pod()), corev1.EventTypeWarning, ReasonLayerNotRestored,
		"winkube cannot restore the files container %s wrote before the node agent stopped: %v", plan.Container.Name, err)
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
