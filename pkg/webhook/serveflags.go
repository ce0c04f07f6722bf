package webhook

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
)

// ImageRepository is where winkube's image is published; its entrypoint
// is the winkube binary. `webhook install` runs it by default, and the
// emulated nodes run winkube itself for it.
const ImageRepository = "ghcr.io/winkube/winkube"

// Where image platforms come from (--resolve-images).
const (
	ResolveRegistry = "registry"
	ResolveCatalog  = "catalog"
)

// ServeFlags are the policy flags of `winkube webhook serve`, shared with
// `webhook install` (which passes them on to its pods) and with the
// emulated winkube image, which parses the same argv.
type ServeFlags struct {
	WindowsTaint    string
	Enforce, Warn   []string
	Mode            string
	OnRegistryError string
	ResolveImages   string
	Mirrors         []string
	RegistryTimeout time.Duration
	// DataDir, set by the command (not a flag), is the data dir whose
	// image facts answer first (registry.Build); empty: none.
	DataDir string
}

// AddFlags defines the flags on fs with their defaults.
func (f *ServeFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.WindowsTaint, "windows-taint", DefaultWindowsTaint, "the taint of the cluster's Windows nodes, KEY=VALUE:EFFECT; Windows pods get its toleration (SCH-3)")
	fs.StringSliceVar(&f.Enforce, "enforce", nil, "rule IDs (LIM-3, KLT-11) or families (API, LIM, VER) that deny a request (comma-separated or repeated; default API,LIM-1)")
	fs.StringSliceVar(&f.Warn, "warn", nil, "rule IDs or families that only warn (kubectl prints the warning; default LIM,VER,KLT-11)")
	fs.StringVar(&f.Mode, "mode", ModeEnforce, "enforce: refuse what breaks a rule; warn: allow everything with warnings")
	fs.StringVar(&f.OnRegistryError, "on-registry-error", OnRegistryErrorCatalog, "when the registry fails or is slow: catalog (decide from the built-in catalog) or allow (admit with a warning)")
	fs.StringVar(&f.ResolveImages, "resolve-images", ResolveCatalog, "where image platforms come from: registry (with the catalog as fallback) or catalog (offline)")
	fs.StringArrayVar(&f.Mirrors, "registry-mirror", nil, "read images of registry FROM at TO instead, FROM=TO (repeatable)")
	fs.DurationVar(&f.RegistryTimeout, "registry-timeout", DefaultRegistryTimeout, "longest wait for one registry look-up before --on-registry-error applies")
}

// Validate checks what Options does not: where images come from (the
// handler checks its own options and names their flags).
func (f *ServeFlags) Validate() error {
	switch f.ResolveImages {
	case ResolveCatalog, ResolveRegistry:
	default:
		return fmt.Errorf("--resolve-images %q: want registry or catalog", f.ResolveImages)
	}
	if f.RegistryTimeout <= 0 {
		return fmt.Errorf("--registry-timeout %s: want a positive duration", f.RegistryTimeout)
	}
	return nil
}

// Options turns the flags into the handler's options: the registry
// resolver with the pods' pull secrets, or the catalog alone.
func (f *ServeFlags) Options(client kubernetes.Interface) (Options, error) {
	opts := Options{
		Resolver:        imageinfo.CatalogResolver{},
		Client:          client,
		WindowsTaint:    f.WindowsTaint,
		Enforce:         f.Enforce,
		Warn:            f.Warn,
		Mode:            f.Mode,
		OnRegistryError: f.OnRegistryError,
		RegistryTimeout: f.RegistryTimeout,
	}
	mirrors, err := registry.ParseMirrors(f.Mirrors)
	if err != nil {
		return opts, fmt.Errorf("--registry-mirror: %w", err)
	}
	r, err := registry.Build(f.ResolveImages, registry.Options{Mirrors: mirrors, Timeout: f.RegistryTimeout}, f.DataDir)
	if err != nil {
		return opts, fmt.Errorf("--resolve-images %s: %w", f.ResolveImages, err)
	}
	opts.Resolver = r
	if f.ResolveImages == ResolveRegistry {
		// The pod's imagePullSecrets, then its service account's, as the
		// kubelet tries them.
		opts.Secrets = func(ctx context.Context, pod *corev1.Pod) ([][]byte, error) {
			return registry.SecretsFor(ctx, client, pod)
		}
	}
	return opts, nil
}

// NewServeHandler is the handler `winkube webhook serve` runs for the
// cluster of cfg: the flags' options, with the cluster's version for the
// API-* rules. A version that cannot be read is a warning on warnOut (the
// handler then asks discovery itself, see Options.KubernetesVersion).
func NewServeHandler(cfg *rest.Config, f ServeFlags, warnOut io.Writer) (*Handler, error) {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("API client: %w", err)
	}
	opts, err := f.Options(client)
	if err != nil {
		return nil, err
	}
	if v, err := client.Discovery().ServerVersion(); err == nil {
		opts.KubernetesVersion = v.GitVersion
	} else {
		fmt.Fprintf(warnOut, "warning: reading the cluster's version: %v\n", err)
	}
	return NewHandler(opts)
}

// ServingLine is what `winkube webhook serve` prints once it serves.
func ServingLine(listen, host string, f ServeFlags) string {
	return fmt.Sprintf("Serving the winkube webhook on https://%s (cluster %s, images from %s, mode %s)", listen, host, f.ResolveImages, f.Mode)
}
