package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/controlplane"
	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/gmsa"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// InputError is a problem with what `winkube up` was given — the data dir,
// the cluster config, a manifest to apply — found before anything started.
// The CLI reports it as a usage error.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// prepared is everything Up checked before starting anything.
type prepared struct {
	dir       string
	cfg       *v1alpha1.Cluster
	resumed   bool
	manifests *Manifests
	pools     *poolPlan
	// fresh: the data dir did not exist or was empty, so a failed start
	// may remove what it wrote; existed: the directory itself was there.
	fresh, existed bool
}

// prepare checks the data dir, loads the config and reads every --apply
// input, so that a mistake in any of them fails before a process starts
// or a file is written.
func prepare(o Options) (*prepared, error) {
	dir, err := datadir.Resolve(o.DataDir)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	if err := datadir.CheckUsable(dir); err != nil {
		return nil, &InputError{Err: err}
	}
	in := &prepared{dir: dir}
	if in.fresh, err = datadir.IsEmptyOrMissing(dir); err != nil {
		return nil, fmt.Errorf("reading data dir %s: %w", dir, err)
	}
	_, statErr := os.Stat(dir)
	in.existed = statErr == nil
	in.cfg, in.resumed, err = loadConfig(o.ConfigFile, dir)
	if err != nil && o.ConfigFile != "" {
		return nil, &InputError{Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("the saved config of data dir %s (pass --config, or delete the data dir with winkube down): %w", dir, err)
	}
	if in.pools, err = planPools(readSaved(dir), in.cfg, dir); err != nil {
		return nil, &InputError{Err: err}
	}
	if o.Name != "" {
		if err := datadir.CheckName(o.Name); err != nil {
			return nil, &InputError{Err: fmt.Errorf("--name: %w", err)}
		}
	}
	var installed []schema.GroupVersionKind
	if o.GMSA {
		installed = append(installed, gmsa.GVR.GroupVersion().WithKind(gmsa.Kind))
	}
	if in.manifests, err = LoadManifests(o.Apply, !in.fresh, installed...); err != nil {
		return nil, &InputError{Err: err}
	}
	return in, nil
}

// readSaved is the config the data dir last ran, read without validation
// (an older winkube may have accepted what this one refuses), or nil.
func readSaved(dir string) *v1alpha1.Cluster {
	path := filepath.Join(dir, savedConfig)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	cfg, err := v1alpha1.Read(path)
	if err != nil {
		return nil
	}
	return cfg
}

// Check runs every check Up runs before it starts anything, and starts
// nothing: for `up --detach`, which reports input errors itself before it
// hands the start to a background process.
func Check(o Options) error {
	_, err := prepare(o)
	return err
}

// abort handles a failed start: it stops what runs, removes the data dir
// again if this start created it, and turns an interruption (Ctrl-C) into
// one line instead of whatever half-finished wait it cut short.
func (c *Cluster) abort(ctx context.Context, err error, in *prepared) error {
	c.stopParts()
	kept := "state kept in " + c.DataDir
	if in.fresh && !errors.Is(err, controlplane.ErrDataDirInUse) {
		kept = "removed what it wrote to " + c.DataDir
		if rmErr := removeCreated(c.DataDir, in.existed); rmErr != nil {
			kept = fmt.Sprintf("could not remove what it wrote to %s: %v", c.DataDir, rmErr)
			c.say("The failed first start %s.", kept)
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted while starting the cluster; %s", kept)
	}
	return err
}

// removeCreated removes what a failed first start wrote: the data dir when
// it did not exist before, else its contents (it was empty). It leaves
// everything alone while another process holds the data dir's lock.
func removeCreated(dir string, existed bool) error {
	held, err := lockHeld(filepath.Join(dir, datadir.LockFile))
	if err != nil {
		return err
	}
	if held {
		return errors.New("another winkube holds it now")
	}
	if !existed {
		return os.RemoveAll(dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
