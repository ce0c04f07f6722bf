// Package imagebuild makes winkube's container image without Docker: the
// statically linked binary in one layer, a config whose entrypoint is it,
// written as a docker-archive tarball that `kind load image-archive` and
// `docker load` read. Every timestamp is fixed, so the same binary always
// gives the same image digest.
package imagebuild

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Where the binary goes and who runs it. 65532 is the "nonroot" user of
// distroless images, and the user the charts' pods ask for.
const (
	BinaryPath = "/winkube"
	User       = "65532:65532"
)

// Epoch is the time every file and the config carry unless
// $SOURCE_DATE_EPOCH says otherwise (the reproducible-builds convention).
var Epoch = time.Unix(0, 0).UTC()

// Image puts the binary at binaryFile in one layer under BinaryPath and
// returns the image for arch (linux). layerDir receives the compressed
// layer, which the image reads back when written; it must outlive the
// image.
func Image(binaryFile, arch, layerDir string, created time.Time) (v1.Image, error) {
	layerFile, err := writeLayer(binaryFile, layerDir, created)
	if err != nil {
		return nil, err
	}
	// The file is gzip already: go-containerregistry uses it as the
	// compressed blob as is, so its digest is the file's.
	layer, err := tarball.LayerFromFile(layerFile, tarball.WithMediaType(types.DockerLayer))
	if err != nil {
		return nil, fmt.Errorf("reading layer %s: %w", layerFile, err)
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", arch
	cfg.Created = v1.Time{Time: created}
	cfg.Config.Entrypoint = []string{BinaryPath}
	cfg.Config.User = User
	cfg.Config.WorkingDir = "/"
	// The pod's in-cluster client and Go's os.TempDir need nothing else.
	cfg.Config.Env = []string{"PATH=/"}
	cfg.History = []v1.History{{Created: v1.Time{Time: created}, CreatedBy: "winkube hack/image: go build ./cmd/winkube", Comment: "winkube binary"}}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, err
	}
	return mutate.CreatedAt(img, v1.Time{Time: created})
}

// writeLayer writes the layer's tar.gz: /tmp (writable, as programs
// expect) and the binary, owned by root, executable by everyone.
func writeLayer(binaryFile, dir string, created time.Time) (string, error) {
	bin, err := os.Open(binaryFile)
	if err != nil {
		return "", err
	}
	defer bin.Close()
	st, err := bin.Stat()
	if err != nil {
		return "", err
	}
	out, err := os.CreateTemp(dir, "layer-*.tar.gz")
	if err != nil {
		return "", err
	}
	defer out.Close()
	// A zero gzip header (no name, no time) keeps the bytes reproducible.
	// BestSpeed: the binary is large and the image is mostly loaded into
	// a local kind cluster, where a smaller blob saves nothing.
	zw, err := gzip.NewWriterLevel(out, gzip.BestSpeed)
	if err != nil {
		return "", err
	}
	tw := tar.NewWriter(zw)
	entries := []*tar.Header{
		{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777, ModTime: created},
		{Typeflag: tar.TypeReg, Name: BinaryPath[1:], Mode: 0o755, Size: st.Size(), ModTime: created},
	}
	for _, h := range entries {
		if err := tw.WriteHeader(h); err != nil {
			return "", err
		}
	}
	if _, err := io.Copy(tw, bin); err != nil {
		return "", fmt.Errorf("copying %s into the layer: %w", binaryFile, err)
	}
	for _, c := range []io.Closer{tw, zw} {
		if err := c.Close(); err != nil {
			return "", err
		}
	}
	return out.Name(), out.Close()
}
