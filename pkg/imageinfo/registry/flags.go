package registry

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/facts"
)

// The values of --resolve-images.
const (
	ModeRegistry = "registry"
	ModeCatalog  = "catalog"
)

// Flags are the command-line flags that choose and configure a resolver,
// shared by every command that looks images up (image, lint, the node
// agents, the webhook) so they read the same.
type Flags struct {
	// Mode is --resolve-images: registry or catalog.
	Mode string
	// Mirrors are the --registry-mirror FROM=TO values.
	Mirrors []string
	// Insecure are the --insecure-registry hosts.
	Insecure []string
	// Timeout is --registry-timeout.
	Timeout time.Duration
	// DataDir, set by the command (not a flag), is the data dir whose
	// image facts the resolver reads: what `winkube image import` stored
	// there, and the registry answers kept for offline use. Empty: none.
	DataDir string
}

// AddFlags registers the flags on fs with the given default mode (catalog
// for commands that must work offline, registry for people's look-ups).
func (f *Flags) AddFlags(fs *pflag.FlagSet, defaultMode string) {
	fs.StringVar(&f.Mode, "resolve-images", defaultMode,
		"where image platforms come from: registry (read each image's index from its registry, falling back to the built-in catalog) or catalog (built-in catalog only, no network)")
	fs.StringArrayVar(&f.Mirrors, "registry-mirror", nil,
		"FROM=TO: read images of registry FROM from TO instead, e.g. docker.io=127.0.0.1:5000 (repeatable)")
	fs.StringArrayVar(&f.Insecure, "insecure-registry", nil,
		"registry host to reach over plain HTTP or unverified TLS (repeatable; loopback registries need not be listed)")
	fs.DurationVar(&f.Timeout, "registry-timeout", DefaultTimeout,
		"longest wait for one registry look-up before falling back to the catalog")
}

// Resolver builds the resolver the flags ask for: the catalog, or a
// registry Resolver falling back to it; with DataDir, behind the facts
// imported there, and with the registry's answers kept there too.
func (f *Flags) Resolver() (imageinfo.Resolver, error) {
	switch f.Mode {
	case ModeCatalog, "", ModeRegistry:
	default:
		return nil, fmt.Errorf("--resolve-images %q: want registry or catalog", f.Mode)
	}
	mirrors, err := ParseMirrors(f.Mirrors)
	if err != nil {
		return nil, err
	}
	if f.Timeout < 0 {
		return nil, fmt.Errorf("--registry-timeout %s: must not be negative", f.Timeout)
	}
	return Build(f.Mode, Options{Mirrors: mirrors, Insecure: f.Insecure, Timeout: f.Timeout}, f.DataDir)
}

// Build is the resolver of a --resolve-images mode: the registry's
// (configured by opts) or the catalog alone; with a data dir, the facts
// imported there answer first, and the registry's answers are kept there
// to answer when it cannot be reached, and in catalog mode (which asks
// no registry) before the catalog.
func Build(mode string, opts Options, dataDir string) (imageinfo.Resolver, error) {
	var imported, disk *facts.Store
	if dataDir != "" {
		var err error
		if imported, err = facts.Open(facts.ImportedPath(dataDir)); err != nil {
			return nil, err
		}
		if disk, err = facts.Open(facts.CachePath(dataDir)); err != nil {
			return nil, err
		}
	}
	if mode == ModeRegistry {
		opts.Imported, opts.Disk = imported, disk
		return New(opts)
	}
	if dataDir == "" {
		return imageinfo.CatalogResolver{}, nil
	}
	kept := facts.Resolver{Facts: disk, Next: imageinfo.CatalogResolver{}, Source: imageinfo.SourceCache}
	return facts.Resolver{Facts: imported, Next: kept}, nil
}
