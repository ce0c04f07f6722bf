// Package cri is the emulated container runtime behind an emulated node: it
// decides whether an image pulls and whether a container or sandbox can be
// created on a host, and words each failure the way containerd or Docker on
// that host would (IMG-2, IMG-4, IMG-5). It does no I/O.
package cri

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/windows"
)

// Runtime names (KLT-10).
const (
	Containerd = "containerd"
	Docker     = "docker"
)

// Runtime is one node's container runtime.
type Runtime struct {
	// Name is "containerd" or "docker".
	Name string
	// Version is the runtime's version without the scheme, e.g. "1.7.20".
	Version string
	// OS and Arch are the host platform, e.g. "windows", "amd64".
	OS, Arch string
	// Build is the host's Windows build; zero on Linux.
	Build windows.Build
}

// VersionString is node.status.nodeInfo.containerRuntimeVersion (KLT-1),
// e.g. "containerd://1.7.20".
func (r Runtime) VersionString() string { return r.Name + "://" + r.Version }

// IDPrefix is the scheme of container IDs in pod status.
func (r Runtime) IDPrefix() string { return r.Name + "://" }

// PullError is a failed image pull: the kubelet shows ErrImagePull and then
// ImagePullBackOff.
type PullError struct{ Message string }

func (e *PullError) Error() string { return e.Message }

// CreateError is a failed container creation: the kubelet shows
// CreateContainerError.
type CreateError struct{ Message string }

func (e *CreateError) Error() string { return e.Message }

// SandboxError is a failed pod sandbox: the kubelet emits
// FailedCreatePodSandBox and the pod stays ContainerCreating.
type SandboxError struct{ Message string }

func (e *SandboxError) Error() string { return e.Message }

// Pulled describes a successful pull.
type Pulled struct {
	// Ref is the normalised reference, e.g. docker.io/library/nginx:latest.
	Ref string
	// ImageID is the digest reference shown as containerStatuses[].imageID.
	ImageID string
	// Size is the image size in bytes, for the Pulled event.
	Size int64
	// Duration is how long the pull takes.
	Duration time.Duration
}

// Pull resolves image for this host. An image without an entry for the host's
// OS and architecture fails to pull (IMG-4). A Windows image of the wrong
// build still pulls: the runtime picks the closest windows/amd64 entry and the
// mismatch only shows when the container is created.
func (r Runtime) Pull(image string) (Pulled, error) {
	img := imageinfo.Lookup(image)
	// Any build will do here; the build is checked at creation.
	if _, err := imageinfo.MatchHost(img, r.OS, r.Arch, windows.Build{}); err != nil {
		return Pulled{}, &PullError{Message: r.noMatchMessage(img)}
	}
	return Pulled{
		Ref:      img.Ref(),
		ImageID:  img.Repository + "@sha256:" + digestOf(img.Ref()),
		Size:     imageSize(img),
		Duration: pullDuration(img.Ref()),
	}, nil
}

// noMatchMessage words a pull with no platform for the host the way the
// runtime's gRPC error reaches the kubelet.
func (r Runtime) noMatchMessage(img imageinfo.Image) string {
	if r.Name == Docker {
		platform := r.OS + "/" + r.Arch
		if !r.Build.IsZero() {
			platform += " " + r.Build.Label()
		}
		return fmt.Sprintf("rpc error: code = Unknown desc = Error response from daemon: no matching manifest for %s in the manifest list entries", platform)
	}
	return fmt.Sprintf("rpc error: code = NotFound desc = failed to pull and unpack image %q: no match for platform in manifest: not found", img.Ref())
}

// CreateContainer checks that a pulled image can run on this host (IMG-2).
// id is the container ID the runtime would have assigned; HCS names it.
func (r Runtime) CreateContainer(image, id string) error {
	_, err := imageinfo.MatchHost(imageinfo.Lookup(image), r.OS, r.Arch, r.Build)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, imageinfo.ErrOSVersionMismatch):
		return &CreateError{Message: r.hcsMismatch(id)}
	default:
		return &CreateError{Message: err.Error()}
	}
}

// hcsMismatch is HCS error 0xc0370101 as each runtime reports it (IMG-4):
// containerd's shim says hcs::CreateComputeSystem, Docker's hcsshim says
// hcsshim::CreateComputeSystem.
func (r Runtime) hcsMismatch(id string) string {
	if r.Name == Docker {
		return fmt.Sprintf("Error response from daemon: hcsshim::CreateComputeSystem %s: The container operating system does not match the host operating system.", id)
	}
	return fmt.Sprintf("failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem %s: The container operating system does not match the host operating system.: unknown", id)
}

// RunSandbox checks the pause image for a pod sandbox (IMG-5, TS-11). The
// returned message is what the kubelet puts after "Failed to create pod
// sandbox: ".
func (r Runtime) RunSandbox(pauseImage, sandboxID string) error {
	img := imageinfo.Lookup(pauseImage)
	if _, err := imageinfo.MatchHost(img, r.OS, r.Arch, windows.Build{}); err != nil {
		if r.Name == Docker {
			return &SandboxError{Message: fmt.Sprintf("rpc error: code = Unknown desc = failed pulling image %q: Error response from daemon: no matching manifest for %s/%s in the manifest list entries", pauseImage, r.OS, r.Arch)}
		}
		return &SandboxError{Message: fmt.Sprintf("rpc error: code = Unknown desc = failed to get sandbox image %q: failed to pull image %q: failed to pull and unpack image %q: no match for platform in manifest: not found", pauseImage, pauseImage, img.Ref())}
	}
	if err := r.CreateContainer(pauseImage, sandboxID); err != nil {
		if r.Name == Docker {
			return &SandboxError{Message: fmt.Sprintf("rpc error: code = Unknown desc = failed to start sandbox container for pod: %s", err)}
		}
		return &SandboxError{Message: fmt.Sprintf("rpc error: code = Unknown desc = failed to start sandbox %q: %s", sandboxID, err)}
	}
	return nil
}

// NewID returns a container or sandbox ID: 64 hex digits derived from seed,
// so the same container gets the same ID after an agent restart.
func NewID(seed string) string {
	return digestOf(seed)
}

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// imageSize makes up a stable, plausible size: Windows Server Core images
// are gigabytes, Nano Server and Linux images tens of megabytes.
func imageSize(img imageinfo.Image) int64 {
	h := int64(hash(img.Ref()) % 1000)
	switch {
	case img.HasOS("windows") && strings.Contains(img.Repository, "nanoserver"):
		return 120_000_000 + h*100_000
	case img.HasOS("windows") && !img.HasOS("linux"):
		return 2_400_000_000 + h*2_000_000
	default:
		return 20_000_000 + h*80_000
	}
}

// pullDuration is a stable few hundred milliseconds per image.
func pullDuration(ref string) time.Duration {
	return time.Duration(200+hash(ref)%500) * time.Millisecond
}

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}
