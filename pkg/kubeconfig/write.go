package kubeconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// lockWait is how long update waits for another writer's lock file.
const lockWait = 10 * time.Second

// update loads the kubeconfig at path (empty when missing), lets change
// edit it, and writes it back atomically when change says it changed
// something. It holds <path>.lock meanwhile, the lock file kubectl takes,
// so two writers (two `winkube up`, or kubectl) do not lose each other's
// entries.
func update(path string, change func(*clientcmdapi.Config) bool) error {
	// Write the file a symlinked ~/.kube/config points to, not over the link.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	unlock, err := lock(path)
	if err != nil {
		return err
	}
	defer unlock()
	cfg, mode, err := load(path)
	if err != nil {
		return err
	}
	if !change(cfg) {
		return nil
	}
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	return writeAtomic(path, data, mode)
}

// load reads path, or returns an empty config for a missing file, with
// the mode to write it back with (0600 for a new file).
func load(path string) (*clientcmdapi.Config, os.FileMode, error) {
	info, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return clientcmdapi.NewConfig(), 0o600, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("kubeconfig %s (fix or move it, or pass --kubeconfig-merge=false): %w", path, err)
	}
	return cfg, info.Mode().Perm(), nil
}

// writeAtomic replaces path by a file with data: written beside it, then
// renamed over it, so a reader never sees half a kubeconfig.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	return nil
}

// lock creates <path>.lock exclusively, waiting for another holder up to
// lockWait, and returns its release.
func lock(path string) (func(), error) {
	name := path + ".lock"
	deadline := time.Now().Add(lockWait)
	for {
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(name) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("locking kubeconfig %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("kubeconfig %s stayed locked for %s: remove %s if no kubectl or winkube is writing it", path, lockWait, name)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
