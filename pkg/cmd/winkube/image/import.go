package image

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/datadir"
	"github.com/winkube/winkube/pkg/imageinfo/facts"
)

type importFlags struct {
	Ref     string
	DataDir string
}

// newImportCommand is `winkube image import`.
func newImportCommand(streams cmd.IOStreams) *cobra.Command {
	flags := &importFlags{}
	c := &cobra.Command{
		Use:   "import [flags] FILE...",
		Short: "Store what image files say about their images, for machines that cannot ask a registry",
		Long: "winkube image import reads each FILE's images: their platforms (os, architecture, os.version,\n" +
			"os.features) and, where the file has the image config, its entrypoint, cmd, env and user. It\n" +
			"stores them in the data dir (images/imported.json), where the emulated nodes' pulls, winkube lint,\n" +
			"doctor, webhook serve and winkube image find them, so all of them say the same of the image.\n\n" +
			"A FILE is a docker-archive (docker save), an OCI image layout (a directory or its tar), the JSON of\n" +
			"crane manifest or docker manifest inspect [-v], or an image config (crane config). Archives and\n" +
			"docker manifest inspect -v name their images; for the others give the name with --ref.\n\n" +
			"All files are read before anything is stored: a file that is not an image fails the command with\n" +
			"an error naming it, and nothing is imported. Commands without a data dir of their own (lint,\n" +
			"webhook serve, image) read the default data dir, or the one --data-dir names.",
		Example: "  docker save -o app.tar registry.example.com/team/app:1.0 && winkube image import app.tar\n" +
			"  crane manifest mcr.microsoft.com/windows/nanoserver:ltsc2022 > nano.json\n" +
			"  winkube image import --ref mcr.microsoft.com/windows/nanoserver:ltsc2022 nano.json",
		Args:          cobra.MinimumNArgs(1),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, args []string) error {
			return runImport(streams, flags, args)
		},
	}
	c.Flags().StringVar(&flags.Ref, "ref", "", "image reference of a FILE that names none (a manifest's or config's JSON, an untagged archive)")
	c.Flags().StringVar(&flags.DataDir, "data-dir", "", "data dir to store the facts in (default ~/.winkube/default)")
	return c
}

func runImport(streams cmd.IOStreams, flags *importFlags, files []string) error {
	if flags.Ref != "" {
		if err := checkRefs([]string{flags.Ref}); err != nil {
			return &cmd.ExitError{Code: ExitUsage, Err: fmt.Errorf("--ref: %w", err)}
		}
	}
	dir, err := datadir.Resolve(flags.DataDir)
	if err != nil {
		return &cmd.ExitError{Code: ExitUsage, Err: err}
	}
	store, err := facts.Open(facts.ImportedPath(dir))
	if err != nil {
		return err
	}
	now := time.Now()
	var all []facts.Fact
	for _, f := range files {
		got, err := facts.Import(f, flags.Ref, now)
		if err != nil {
			return &cmd.ExitError{Code: ExitUsage, Err: err}
		}
		all = append(all, got...)
	}
	if err := store.Put(all...); err != nil {
		return err
	}
	for _, f := range all {
		var ps []string
		for _, p := range f.Platforms {
			ps = append(ps, platformString(p))
		}
		fmt.Fprintf(streams.Out, "imported %s: %v\n", f.Ref, ps)
	}
	fmt.Fprintf(streams.Out, "stored in %s\n", store.Path())
	return nil
}

func platformString(p facts.Platform) string {
	s := p.OS + "/" + p.Architecture
	if p.Variant != "" {
		s += "/" + p.Variant
	}
	if p.OSVersion != "" {
		s += ":" + p.OSVersion
	}
	return s
}
