package imagebuild

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/winkube/winkube/pkg/webhook"
)

// DefaultPackage is what the image runs.
const DefaultPackage = "./cmd/winkube"

// Options say what to build.
type Options struct {
	// ModuleDir is the root of the winkube module to build from.
	ModuleDir string
	// Package is the main package to build, relative to ModuleDir
	// (default DefaultPackage).
	Package string
	// Arch is the GOARCH of the image (default: this machine's).
	Arch string
	// Tag is the image's name (default ghcr.io/winkube/winkube:<version of
	// the binary>).
	Tag string
	// WorkDir receives the binary and the layer; it must outlive the image
	// until it is written. Default: a directory the caller removes with
	// Result.Cleanup.
	WorkDir string
}

// Result is a built image and its name.
type Result struct {
	Image   v1.Image
	Tag     name.Tag
	Version string // the binary's own version, as `winkube version` says it
	workDir string
	cleanup bool
}

// Cleanup removes the work directory Build made.
func (r *Result) Cleanup() {
	if r.cleanup {
		os.RemoveAll(r.workDir)
	}
}

// Build compiles winkube and makes its image. The compile is reproducible
// (-trimpath, no build ID, no cgo), and so, with fixed timestamps, is the
// image.
func Build(ctx context.Context, o Options) (*Result, error) {
	if o.Arch == "" {
		o.Arch = runtime.GOARCH
	}
	if o.Package == "" {
		o.Package = DefaultPackage
	}
	res := &Result{workDir: o.WorkDir}
	if res.workDir == "" {
		dir, err := os.MkdirTemp("", "winkube-image-")
		if err != nil {
			return nil, err
		}
		res.workDir, res.cleanup = dir, true
	}
	bin := filepath.Join(res.workDir, "winkube")
	if err := goBuild(ctx, o.ModuleDir, o.Package, o.Arch, bin); err != nil {
		res.Cleanup()
		return nil, err
	}
	var err error
	res.Version, err = BinaryVersion(bin)
	if err != nil {
		res.Cleanup()
		return nil, err
	}
	if res.Tag, err = imageTag(o.Tag, res.Version); err != nil {
		res.Cleanup()
		return nil, err
	}
	created, err := Created()
	if err != nil {
		res.Cleanup()
		return nil, err
	}
	if res.Image, err = Image(bin, o.Arch, res.workDir, created); err != nil {
		res.Cleanup()
		return nil, err
	}
	return res, nil
}

func imageTag(tag, version string) (name.Tag, error) {
	if tag == "" {
		tag = webhook.ImageRepository + ":" + version
	}
	t, err := name.NewTag(tag, name.StrictValidation)
	if err != nil {
		return name.Tag{}, fmt.Errorf("image tag %q: %w", tag, err)
	}
	return t, nil
}

// goBuild runs `go build` of pkg for linux/arch into out, with the flags that
// make the binary depend on the sources alone.
func goBuild(ctx context.Context, moduleDir, pkg, arch, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-buildid=", "-o", out, pkg)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s in %s: %w\n%s", pkg, moduleDir, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// Created is the image's timestamp: $SOURCE_DATE_EPOCH when set, else
// Epoch.
func Created() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return Epoch, nil
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("$SOURCE_DATE_EPOCH %q: want seconds since 1970: %w", s, err)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// BinaryVersion is the version a winkube binary reports, read from its
// build information with the rule of `winkube version`: the module
// version when installed with `go install`, else devel-<revision>, else
// devel. (The version command reads its own binary; this reads another.)
func BinaryVersion(path string) (string, error) {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading the build information of %s: %w", path, err)
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v, nil
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel-" + s.Value[:12], nil
		}
	}
	return "devel", nil
}

// WriteTarball writes img as a docker-archive tarball (what `docker save`
// writes) tagged tag.
func WriteTarball(path string, tag name.Tag, img v1.Image) error {
	if err := tarball.WriteToFile(path, tag, img); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
