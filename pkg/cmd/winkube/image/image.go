// Package image is `winkube image`.
package image

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/cmd/winkube/internal/kubeflags"
	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	"github.com/winkube/winkube/pkg/imageinfo/report"
)

// Exit codes.
const (
	// ExitUnknown: some image's platforms are not known (only guessed).
	ExitUnknown = 1
	ExitUsage   = 2
)

type flagpole struct {
	Registry    registry.Flags
	SecretFiles []string
	Cluster     kubeflags.Flags
	Output      string
}

// NewCommand returns `winkube image`.
func NewCommand(streams cmd.IOStreams) *cobra.Command {
	flags := &flagpole{}
	c := &cobra.Command{
		Use:   "image [flags] IMAGE...",
		Short: "Show an image's platforms and Windows builds, and which node pools can run it",
		Long: "winkube image reads each image's platforms (rule IMG-3): the os, architecture, os.version and\n" +
			"os.features of its index entries, or of its config for a single-platform image, and names the\n" +
			"Windows Server release of each build (IMG-1). Every answer says where it came from: registry,\n" +
			"cache, imported, catalog (the built-in catalog, when the registry could not answer) or unknown.\n\n" +
			"This command asks the registry by default (--resolve-images registry), since it is run by people\n" +
			"who are online; winkube lint and the emulated nodes default to the catalog so they work offline.\n" +
			"Private images: --pull-secret-file takes a .dockerconfigjson payload or ~/.docker/config.json.\n\n" +
			"Facts stored in the data dir (--data-dir, default ~/.winkube/default) come first: images imported with\n" +
			"winkube image import (from imported), then registry answers kept from earlier look-ups, which answer\n" +
			"when the registry cannot be reached (from cache).\n\n" +
			"With a cluster (--kubeconfig or $KUBECONFIG; else the winkube cluster of the data dir, when it\n" +
			"exists) it also lists the cluster's node pools and whether each runs the image: what the node's\n" +
			"runtime would pull (IMG-4) and whether that build starts on the node's build (IMG-2).\n\n" +
			"Exit status: 0 when every image's platforms are known, 1 when some are only guessed or cannot be pulled, 2 for usage\n" +
			"errors or when the named cluster cannot be read.",
		Example: "  winkube image mcr.microsoft.com/windows/servercore:ltsc2022\n" +
			"  winkube image --registry-mirror docker.io=127.0.0.1:5000 nginx:1.27 -o json\n" +
			"  winkube image --resolve-images catalog --kubeconfig ~/.kube/config mcr.microsoft.com/windows/nanoserver:ltsc2019",
		Args:          cobra.MinimumNArgs(1),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, args []string) error {
			return run(c.Context(), streams, flags, args)
		},
	}
	c.AddCommand(newImportCommand(streams))
	f := c.Flags()
	flags.Registry.AddFlags(f, registry.ModeRegistry)
	f.StringArrayVar(&flags.SecretFiles, "pull-secret-file", nil, "file holding registry credentials as .dockerconfigjson or ~/.docker/config.json (repeatable; tried in order, then anonymous)")
	flags.Cluster.AddFlags(f)
	f.StringVarP(&flags.Output, "output", "o", "text", "output format: text or json")
	return c
}

func run(ctx context.Context, streams cmd.IOStreams, flags *flagpole, refs []string) error {
	if flags.Output != "text" && flags.Output != "json" {
		return &cmd.ExitError{Code: ExitUsage, Err: fmt.Errorf("--output %q: want text or json", flags.Output)}
	}
	err := checkRefs(refs)
	if err != nil {
		return &cmd.ExitError{Code: ExitUsage, Err: err}
	}
	// The facts imported into the data dir, and the registry answers
	// kept there, as every command reads them (none without a home).
	flags.Registry.DataDir, _ = datadir.Resolve(flags.Cluster.DataDir)
	resolver, err := flags.Registry.Resolver()
	if err != nil {
		return &cmd.ExitError{Code: ExitUsage, Err: err}
	}
	var secrets [][]byte
	for _, path := range flags.SecretFiles {
		b, err := os.ReadFile(path)
		if err != nil {
			return &cmd.ExitError{Code: ExitUsage, Err: fmt.Errorf("--pull-secret-file: %w", err)}
		}
		secrets = append(secrets, b)
	}
	groups, err := clusterGroups(ctx, streams.ErrOut, flags)
	if err != nil {
		return &cmd.ExitError{Code: ExitUsage, Err: err}
	}
	reports := report.Describe(ctx, resolver, refs, secrets, groups)
	if flags.Output == "json" {
		err = report.WriteJSON(streams.Out, reports)
	} else {
		err = report.WriteText(streams.Out, reports, groups != nil)
	}
	if err != nil {
		return err
	}
	for _, r := range reports {
		if !r.Known {
			return &cmd.ExitError{Code: ExitUnknown}
		}
	}
	return nil
}

// clusterGroups reads the target cluster's nodes. A cluster the user named
// must be readable; the default winkube cluster is read only when its
// kubeconfig exists, and a failure there is a note, not an error. nil
// means no cluster.
func clusterGroups(ctx context.Context, errOut io.Writer, flags *flagpole) ([]report.NodeGroup, error) {
	// A data dir alone may hold image facts and no cluster: its cluster
	// is read only when it has one, as the default's.
	named := flags.Cluster.Kubeconfig != "" || flags.Cluster.Context != "" || os.Getenv("KUBECONFIG") != ""
	if !named {
		dir, err := datadir.Resolve(flags.Cluster.DataDir)
		if err != nil {
			return nil, nil
		}
		if _, err := os.Stat(datadir.Kubeconfig(dir)); err != nil {
			return nil, nil
		}
	}
	client, err := flags.Cluster.Client()
	if err == nil {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		nodes, lerr := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if lerr == nil {
			return report.Groups(nodes.Items), nil
		}
		err = flags.Cluster.Explain(fmt.Errorf("listing the cluster's nodes (check --kubeconfig and --context): %w", lerr))
	}
	if named {
		return nil, err
	}
	fmt.Fprintf(errOut, "note: not checking node pools, the default winkube cluster cannot be read: %v\n", err)
	return nil, nil
}

// checkRefs refuses what is not an image reference before any lookup, so
// a typo is a usage error naming it instead of a guess about
// docker.io/library/<typo>.
func checkRefs(refs []string) error {
	for _, ref := range refs {
		if _, err := name.ParseReference(ref); err != nil {
			return fmt.Errorf("image %q is not an image reference (such as nginx:1.27 or mcr.microsoft.com/windows/servercore:ltsc2022): %w", ref, err)
		}
	}
	return nil
}
