package imagebuild

import (
	"archive/tar"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

var moduleDir = filepath.Join("..", "..")

// build builds pkg's image into a fresh directory and writes its
// docker-archive tarball there.
func build(t *testing.T, pkg string) (*Result, string) {
	t.Helper()
	dir := t.TempDir()
	res, err := Build(context.Background(), Options{ModuleDir: moduleDir, Package: pkg, WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "image.tar")
	if err := WriteTarball(path, res.Tag, res.Image); err != nil {
		t.Fatal(err)
	}
	return res, path
}

func digest(t *testing.T, img v1.Image) v1.Hash {
	t.Helper()
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// checkImage loads the tarball as `kind load image-archive` does and
// checks what a pod runs: the entrypoint, a non-root user, the platform,
// the tag, and a binary that starts. It returns the binary's path.
func checkImage(t *testing.T, res *Result, path string) string {
	t.Helper()
	tag, err := name.NewTag(res.Tag.String())
	if err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(path, &tag)
	if err != nil {
		t.Fatalf("the tarball does not load as %s: %v", tag, err)
	}
	if got, want := digest(t, img), digest(t, res.Image); got != want {
		t.Errorf("tarball image %s, built %s", got, want)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.Config.Entrypoint, " ") != BinaryPath || cfg.Config.User != User || cfg.OS != "linux" || cfg.Architecture != runtime.GOARCH {
		t.Errorf("config: entrypoint %v user %q platform %s/%s", cfg.Config.Entrypoint, cfg.Config.User, cfg.OS, cfg.Architecture)
	}
	if !strings.HasPrefix(res.Tag.String(), "ghcr.io/winkube/winkube:") || res.Tag.TagStr() != res.Version {
		t.Errorf("tag %s, version %s", res.Tag, res.Version)
	}
	return extractBinary(t, img)
}

// extractBinary copies the image's /winkube out, checking its metadata.
func extractBinary(t *testing.T, img v1.Image) string {
	t.Helper()
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers: %d, %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			t.Fatal("no winkube in the layer")
		}
		if err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.Equal(Epoch) {
			t.Errorf("%s: mtime %s, want %s", h.Name, h.ModTime, Epoch)
		}
		if h.Name != "winkube" {
			continue
		}
		if h.Mode != 0o755 || h.Uid != 0 {
			t.Errorf("winkube: mode %o uid %d", h.Mode, h.Uid)
		}
		out := filepath.Join(t.TempDir(), "winkube")
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, data, 0o755); err != nil {
			t.Fatal(err)
		}
		return out
	}
}

// Two builds of the same sources give the same image digest, and the
// image runs its binary.
func TestBuildIsReproducible(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "")
	first, path := build(t, "./pkg/imagebuild/testdata/hello")
	second, _ := build(t, "./pkg/imagebuild/testdata/hello")
	if a, b := digest(t, first.Image), digest(t, second.Image); a != b {
		t.Errorf("two builds, two digests: %s and %s", a, b)
	}
	bin := checkImage(t, first, path)
	if runtime.GOOS != "linux" {
		return
	}
	out, err := exec.Command(bin).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "hello from the image") {
		t.Errorf("the image's binary: %v: %s", err, out)
	}
}

// winkube's own image: the binary in it is winkube and says its version,
// which is the image's tag. Builds winkube (cached after the first run).
func TestWinkubeImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the winkube binary")
	}
	t.Setenv("SOURCE_DATE_EPOCH", "")
	res, path := build(t, DefaultPackage)
	bin := checkImage(t, res, path)
	if runtime.GOOS != "linux" {
		return
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "winkube "+res.Version+" ") {
		t.Errorf("winkube version in the image: %v: %s (tag %s)", err, out, res.Tag)
	}
}

func TestCreated(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	if got, err := Created(); err != nil || got.Unix() != 1700000000 {
		t.Errorf("Created() = %v, %v", got, err)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "yesterday")
	if _, err := Created(); err == nil || !strings.Contains(err.Error(), "$SOURCE_DATE_EPOCH") {
		t.Errorf("bad $SOURCE_DATE_EPOCH: %v", err)
	}
}
