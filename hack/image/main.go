// Command image builds winkube's container image without Docker and writes
// it as a docker-archive tarball:
//
//	go run ./hack/image -o winkube.tar
//	kind load image-archive winkube.tar
//
// The image holds the statically linked binary of ./cmd/winkube only; its
// entrypoint is /winkube and it runs as user 65532. Building twice from the
// same sources gives the same digest ($SOURCE_DATE_EPOCH sets the
// timestamps, default 1970-01-01).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/winkube/winkube/pkg/imagebuild"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		var usage usageError
		if errors.As(err, &usage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ error }

func run() error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	out := fs.String("o", "winkube.tar", "docker-archive tarball to write")
	tag := fs.String("tag", "", "image name (default ghcr.io/winkube/winkube:<the binary's version>)")
	arch := fs.String("arch", "", "GOARCH of the image (default: this machine's)")
	module := fs.String("C", ".", "root of the winkube module to build")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %v (flags only: -o, -tag, -arch, -C)", fs.Args())}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := imagebuild.Build(ctx, imagebuild.Options{ModuleDir: *module, Arch: *arch, Tag: *tag})
	if err != nil {
		return err
	}
	defer res.Cleanup()
	if err := imagebuild.WriteTarball(*out, res.Tag, res.Image); err != nil {
		return err
	}
	digest, err := res.Image.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("Wrote %s: %s (%s)\nLoad it into kind: kind load image-archive %s\n", *out, res.Tag, digest, *out)
	return nil
}
