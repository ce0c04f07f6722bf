package cluster

import (
	"fmt"
	"time"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/imageinfo/facts"
)

// storeImages files the config's images section with the data dir's
// image facts, beside what `winkube image import` stored, where every
// command reads them (the node agents' resolver sees the file change).
func storeImages(cfg *v1alpha1.Cluster, dir string) error {
	if len(cfg.Images) == 0 {
		return nil
	}
	store, err := facts.Open(facts.ImportedPath(dir))
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	out := make([]facts.Fact, 0, len(cfg.Images))
	for _, img := range cfg.Images {
		f := facts.Fact{Ref: facts.Key(img.Image), Index: !img.Single, Entrypoint: img.Entrypoint, Cmd: img.Cmd,
			From: "cluster config images section", Time: now}
		for _, p := range img.Platforms {
			f.Platforms = append(f.Platforms, facts.Platform{OS: p.OS, Architecture: p.Architecture, OSVersion: p.OSVersion, OSFeatures: p.OSFeatures})
		}
		out = append(out, f)
	}
	if err := store.Put(out...); err != nil {
		return fmt.Errorf("storing the config's images: %w", err)
	}
	return nil
}
